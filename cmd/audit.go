package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"secutil/store/hashindex"
	"secutil/tools/audit"
	"secutil/tools/breach"
	"secutil/tools/dump"
	"secutil/tools/plural"
	"secutil/tools/strength"
)

// audit is `secutil audit DUMP`: the password audit of a credential dump,
// as DSInternals' Test-PasswordQuality audits an Active Directory: a
// summary of the findings first, then a table of every account (or JSON
// Lines, or CSV). The breach counts come from serve's Pwned Passwords
// files, the plaintexts from its reverse-lookup index and the embedded
// common-password list; a plaintext is written only with -show-plaintext.
func (Program) audit(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("audit", stderr)
	format := formatFlag(fs)
	db := fs.String("db", defaultDB, "the database; an SQLite file locates the index beside it")
	hashDB := fs.String("hash-db", "", "reverse hash lookup index (default: beside -db, e.g. secutil-hashes.db); the audit runs without it when there is none")
	breachFile := fs.String("breach-file", "", "Pwned Passwords SHA-1 file, for the breach counts of SHA-1 dumps")
	breachFileNTLM := fs.String("breach-file-ntlm", "", "Pwned Passwords NTLM file, for the breach counts of NT hashes (pwdump, secretsdump, user:nthash)")
	showPlaintext := fs.Bool("show-plaintext", false, "write the passwords found in the index or the common-password list")
	hex32 := fs.String("hex32", "ntlm", "what 32 hex digits after user: are: ntlm (as DSInternals writes them) or md5")
	if err := parseFlags(fs, args, getenv); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	opt := dump.Options{Hex32: dump.NTLM}
	switch *hex32 {
	case "ntlm":
	case "md5":
		opt.Hex32 = dump.MD5
	default:
		return fmt.Errorf("%w: -hex32 %q: want ntlm or md5", ErrUsage, *hex32)
	}
	in, err := openListInput(fs.Args(), stdin, "secutil audit [-format text|json|csv] [-breach-file-ntlm F] [-breach-file F] [-show-plaintext] DUMP (standard input for -)")
	if err != nil {
		return err
	}
	defer in.close()
	breaches, closeBreach, err := openBreachSources(*breachFile, *breachFileNTLM, nil)
	defer closeBreach()
	if err != nil {
		return err
	}
	common := strength.CommonPasswords()
	src := audit.Sources{Breached: map[dump.Algorithm]audit.CountLookup{}, Common: audit.WordList(common)}
	files := map[dump.Algorithm]*breach.File{dump.NTLM: breaches.ntlmFile, dump.SHA1: breaches.sha1File}
	for alg, f := range files {
		if f != nil {
			src.Breached[alg] = audit.BreachCounts(f)
		}
	}
	if breaches.ntlmFile == nil {
		fmt.Fprintln(stderr, "secutil audit: no breach counts for NT hashes: give -breach-file-ntlm, a Pwned Passwords NTLM file (docs/BREACH.md)")
	}
	ix, err := openExistingIndex(*hashDB, *db)
	switch {
	case err == nil:
		defer ix.Close()
		prefetch := newIndexPrefetch(ix)
		defer prefetch.wait() // before the index closes
		for alg, lookup := range src.Breached {
			src.Breached[alg] = prefetch.breach(alg, lookup)
		}
		src.Index = prefetch.plaintexts
	case errors.Is(err, errNoIndex):
		fmt.Fprintf(stderr, "secutil audit: %v; looking plaintexts up in the embedded common-password list only\n", err)
	default:
		return err
	}
	// A million accounts take about 80 MB; without a limit the collector
	// lets the heap grow to twice what it holds before it collects.
	if getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(auditMemoryLimit))
	}

	progress := progressTo(stderr)
	a := audit.New(audit.Options{ShowPlaintext: *showPlaintext, LookupBatch: auditLookupBatch, Progress: lookupProgress(progress)})
	read, err := readDump(ctx, in, opt, a, progress)
	if err != nil {
		return err
	}
	lookupCtx := ctx
	if read.interrupted {
		// What was read is audited; another interrupt stops the lookups.
		var stop context.CancelFunc
		lookupCtx, stop = signal.NotifyContext(context.WithoutCancel(ctx), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	rep, err := a.Report(lookupCtx, src)
	if progress != nil {
		fmt.Fprint(progress, "\r\x1b[K")
	}
	if err != nil {
		if lookupCtx.Err() != nil {
			return errors.New("interrupted during the breach and index lookups: no report written")
		}
		return err
	}
	out := newListOutput(stdout)
	switch *format {
	case formatJSON:
		err = rep.WriteJSONLines(out)
	case formatCSV:
		err = rep.WriteCSV(out)
	default:
		err = rep.WriteText(out)
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	refused := rep.Summary().RefusedLines
	if *format != formatJSON { // JSON Lines has them in their place
		for _, e := range rep.Refused() {
			fmt.Fprintf(stderr, "secutil audit: line %d: %s\n", e.Line, e.Reason)
		}
		if more := refused - len(rep.Refused()); more > 0 {
			fmt.Fprintf(stderr, "secutil audit: and %s more\n", plural.Count(int64(more), "line", "lines"))
		}
	}
	switch {
	case read.interrupted:
		return fmt.Errorf("interrupted: the accounts up to line %d are audited", read.last)
	case refused > 0:
		return fmt.Errorf("%s of the dump refused: no pwdump, secretsdump, user:hash or shadow line", plural.Count(int64(refused), "line", "lines"))
	}
	return nil
}

// auditMemoryLimit is the heap size at which an audit's collector works
// harder, to keep its resident memory within 256 MiB.
const auditMemoryLimit = 160 << 20

// auditLookupBatch is how many distinct digests one breach lookup asks:
// each batch reads its stretch of the sorted file once, and holds about
// 4 MB.
const auditLookupBatch = 1 << 16

// dumpRead accounts for the reading of a dump.
type dumpRead struct {
	last        int // the number of the last line read
	interrupted bool
}

// readDump adds the records of the dump to the audit, and the lines it
// refuses, until its end or an interrupt. An interrupt stops the reading
// at once, even one waiting for a terminal or a pipe, after a whole line.
func readDump(ctx context.Context, in listInput, opt dump.Options, a *audit.Auditor, progress io.Writer) (dumpRead, error) {
	r := newInterruptibleReader(ctx, in.r)
	defer r.stop()
	sc := dump.NewScanner(r, opt)
	var read dumpRead
	start, shown := time.Now(), time.Time{}
	for sc.Scan() {
		if err := sc.LineErr(); err != nil {
			var lineErr *dump.LineError
			if errors.As(err, &lineErr) {
				a.Refuse(lineErr)
			}
		} else if err := a.Add(sc.Record()); err != nil {
			return read, err
		}
		read.last = sc.Line()
		if now := time.Now(); progress != nil && read.last%1024 == 0 && now.Sub(start) >= progressAfter && now.Sub(shown) >= progressEvery {
			fmt.Fprintf(progress, "\rreading: %s\x1b[K", listProgress(read.last, r.read, in.size, now.Sub(start)))
			shown = now
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, errReadInterrupted) {
		return read, err
	}
	read.interrupted = ctx.Err() != nil
	return read, nil
}

// errReadInterrupted is what an interruptibleReader returns once its context
// has ended.
var errReadInterrupted = errors.New("interrupted")

// interruptibleReader reads its source in a goroutine of its own, so that
// a Read waiting for input returns errReadInterrupted as soon as the context
// ends. It gives whole lines only while more input may come: the reading
// stops at a line's end. It counts the bytes it gave, for the progress.
type interruptibleReader struct {
	ctx   context.Context
	data  chan readResult
	free  chan []byte
	quit  chan struct{}
	buf   []byte // received: given up to given, ready to give up to whole
	given int
	whole int
	err   error // the source's, after buf
	read  int64
}

type readResult struct {
	b   []byte
	err error
}

// maxCarry bounds the unfinished line an interruptibleReader holds back:
// a longer one is given as it is (the dump reader refuses it anyway).
const maxCarry = 1 << 20

func newInterruptibleReader(ctx context.Context, src io.Reader) *interruptibleReader {
	r := &interruptibleReader{ctx: ctx, data: make(chan readResult), free: make(chan []byte, 2), quit: make(chan struct{})}
	r.free <- make([]byte, 64<<10)
	r.free <- make([]byte, 64<<10)
	go func() {
		for {
			var b []byte
			select {
			case b = <-r.free:
			case <-r.quit:
				return
			}
			n, err := src.Read(b)
			select {
			case r.data <- readResult{b[:n], err}:
			case <-r.quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *interruptibleReader) Read(p []byte) (int, error) {
	for r.given == r.whole {
		if r.err != nil && r.whole == len(r.buf) {
			return 0, r.err
		}
		// Keep the unfinished line and wait for the rest.
		r.buf = append(r.buf[:0], r.buf[r.given:]...)
		r.given = 0
		select {
		case res := <-r.data:
			r.buf = append(r.buf, res.b...)
			r.free <- res.b[:cap(res.b)]
			r.err = res.err
			r.whole = bytes.LastIndexByte(r.buf, '\n') + 1
			if r.err != nil || len(r.buf)-r.whole > maxCarry {
				r.whole = len(r.buf)
			}
		case <-r.ctx.Done():
			return 0, errReadInterrupted
		}
	}
	n := copy(p, r.buf[r.given:r.whole])
	r.given += n
	r.read += int64(n)
	return n, nil
}

// stop ends the reading goroutine, unless it is waiting for its source,
// where it stays until the process ends.
func (r *interruptibleReader) stop() { close(r.quit) }

// lookupProgress shows the audit's lookups on a terminal.
func lookupProgress(progress io.Writer) func(done, total int) {
	if progress == nil {
		return nil
	}
	start, shown := time.Now(), time.Time{}
	return func(done, total int) {
		if now := time.Now(); now.Sub(start) >= progressAfter && now.Sub(shown) >= progressEvery {
			fmt.Fprintf(progress, "\rlooking up: %d of %d distinct hashes\x1b[K", done, total)
			shown = now
		}
	}
}

// indexPlaintexts looks digests of alg up in the reverse-lookup index,
// hashindex.MaxLookupBatch a query, and returns the password of each, ""
// where it knows none. A digest found under another algorithm of its
// length (an MD5 for an NT hash) is not the account's password.
func indexPlaintexts(ctx context.Context, ix *hashindex.Index, alg dump.Algorithm, digests [][]byte) ([]string, error) {
	out := make([]string, 0, len(digests))
	hexes := make([]string, 0, hashindex.MaxLookupBatch)
	for len(digests) > 0 {
		n := min(len(digests), hashindex.MaxLookupBatch)
		hexes = hexes[:0]
		for _, d := range digests[:n] {
			hexes = append(hexes, hex.EncodeToString(d))
		}
		hits, err := ix.LookupMany(ctx, hexes)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			if h.Found && h.Algorithm == alg.String() {
				out = append(out, h.Plaintext)
			} else {
				out = append(out, "")
			}
		}
		digests = digests[n:]
	}
	return out, nil
}

// indexPrefetch overlaps the index lookups with the breach lookups, which
// the audit makes first and which wait on the disk: each batch of digests
// the breach file is asked about is looked up in the index at the same
// time, and the audit's index lookups of those algorithms then answer from
// what was found. Only the passwords found are kept.
type indexPrefetch struct {
	ix      *hashindex.Index
	running sync.WaitGroup
	mu      sync.Mutex
	found   map[string]string // by algorithm and digest
	err     error
	algs    map[dump.Algorithm]bool // those prefetched
}

func newIndexPrefetch(ix *hashindex.Index) *indexPrefetch {
	return &indexPrefetch{ix: ix, found: map[string]string{}, algs: map[dump.Algorithm]bool{}}
}

// breach wraps the breach lookup of alg so that each batch is also looked
// up in the index.
func (p *indexPrefetch) breach(alg dump.Algorithm, lookup audit.CountLookup) audit.CountLookup {
	p.algs[alg] = true
	return func(ctx context.Context, digests [][]byte) ([]int64, error) {
		own := make([][]byte, len(digests)) // the audit reuses its batch
		all := make([]byte, 0, len(digests)*alg.DigestLen())
		for i, d := range digests {
			all = append(all, d...)
			own[i] = all[len(all)-len(d):]
		}
		p.running.Go(func() {
			plain, err := indexPlaintexts(ctx, p.ix, alg, own)
			p.mu.Lock()
			defer p.mu.Unlock()
			if err != nil {
				p.err = cmp.Or(p.err, err)
				return
			}
			for i, pw := range plain {
				if pw != "" {
					p.found[string(byte(alg))+string(own[i])] = pw
				}
			}
		})
		return lookup(ctx, digests)
	}
}

// plaintexts is the audit's index lookup: from what the breach batches
// found for a prefetched algorithm, from the index for another.
func (p *indexPrefetch) plaintexts(ctx context.Context, alg dump.Algorithm, digests [][]byte) ([]string, error) {
	if !p.algs[alg] {
		return indexPlaintexts(ctx, p.ix, alg, digests)
	}
	if err := p.wait(); err != nil {
		return nil, err
	}
	out := make([]string, len(digests))
	for i, d := range digests {
		out[i] = p.found[string(byte(alg))+string(d)]
	}
	return out, nil
}

// wait waits for the lookups under way, and returns the first error.
func (p *indexPrefetch) wait() error {
	p.running.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}
