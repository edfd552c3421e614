package cmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"secutil/tools/closest"
)

// flagError is a parse error of fs's flags: -h is flag.ErrHelp (exit 0:
// the flags were printed, as asked); anything else a usage error, and a
// flag fs does not have names the one of fs nearest to it ("-dbb": did
// you mean -db?).
func flagError(fs *flag.FlagSet, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	// The flag package's own sentence, with the name as typed after one '-'.
	if name, unknown := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); unknown {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if near, ok := closest.Match(name, names); ok {
			return fmt.Errorf("%w: %v; did you mean -%s?", ErrUsage, err, near)
		}
	}
	return fmt.Errorf("%w: %v", ErrUsage, err)
}

// isServeFlag reports whether serve has a flag called name: only those
// flags are set by environment variables.
func isServeFlag(name string) bool {
	return newServeFlags(&serveConfig{}, io.Discard).Lookup(name) != nil
}

// parseFlags parses args, then fills every flag not given on the command
// line that serve also has from its environment variable (SECUTIL_ + the
// name in capitals, '-' as '_'). A variable naming one of the command's
// own flags is ignored, with a warning: SECUTIL_ADMIN=true must not make
// "secutil user add" create an administrator behind the operator's back.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		return flagError(fs, err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := "SECUTIL_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v := getenv(env)
		switch {
		case v == "" || given[f.Name] || err != nil:
		case !isServeFlag(f.Name):
			fmt.Fprintf(fs.Output(), "secutil: ignoring %s: environment variables set serve's flags only; give -%s on the command line\n", env, f.Name)
		default:
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%w: %s=%q: %v", ErrUsage, env, v, e)
			}
		}
	})
	return err
}

// newFlagSet makes the flag set of the command called name; its -h says
// what the command does, with the overview's line, then lists the flags.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("secutil "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		hasFlags := false
		for _, cmd := range commands() {
			if cmd.name == name {
				fmt.Fprintf(fs.Output(), "secutil %s: %s\n\n", name, cmd.summary)
			}
		}
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(fs.Output(), "Flags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// byteSize is a flag of a number of bytes, given as a whole number with an
// optional unit: 6MiB, 512KiB, 1048576 (bytes). The units are binary, as
// the limits they set are.
type byteSize int64

var byteUnits = []struct {
	suffix string
	bytes  int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

func (s byteSize) String() string {
	for _, u := range byteUnits {
		if s != 0 && int64(s)%u.bytes == 0 {
			return strconv.FormatInt(int64(s)/u.bytes, 10) + u.suffix
		}
	}
	return "0"
}

func (s *byteSize) Set(v string) error {
	number, unit := v, int64(1)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			number, unit = strings.TrimSpace(n), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(number, 10, 64)
	if err != nil || n > math.MaxInt64/unit || n < math.MinInt64/unit {
		return fmt.Errorf("%q is not a size: give a whole number of bytes, or one of KiB, MiB or GiB, such as 512KiB", v)
	}
	*s = byteSize(n * unit)
	return nil
}
