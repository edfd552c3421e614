package dump

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxLineBytes bounds the line the Scanner holds: the longest yescrypt
// shadow line or secretsdump line with a long domain is a few hundred
// bytes. A longer line is a LineError and is skipped to its end.
const MaxLineBytes = 4096

const reasonTooLong = "longer than 4096 bytes"

// Scanner reads the records of a dump one line at a time:
//
//	sc := dump.NewScanner(r, dump.Options{})
//	for sc.Scan() {
//		if err := sc.LineErr(); err != nil {
//			// report err (a *LineError with the line number), go on
//			continue
//		}
//		rec := sc.Record()
//	}
//	if err := sc.Err(); err != nil {
//		// reading failed
//	}
type Scanner struct {
	src   io.Reader
	r     *bufio.Reader
	opt   Options
	n     int  // lines read
	done  bool // the input ended or failed
	rec   Record
	err   error // the current line's *LineError
	ioErr error
}

// NewScanner returns a Scanner reading r.
func NewScanner(r io.Reader, opt Options) *Scanner {
	return &Scanner{src: r, opt: opt}
}

// Scan advances to the next line that is not blank, a comment or one of
// secretsdump's messages, and reports whether there was one: then either
// LineErr or Record describes it. It returns false at the end of the input
// or on a read error (Err).
func (s *Scanner) Scan() bool {
	if s.r == nil {
		s.r = decoded(s.src)
	}
	for !s.done {
		line, tooLong, err := s.readLine()
		if err != nil {
			// The line before the end or the failure is still read.
			s.done = true
			if err != io.EOF {
				s.ioErr = err
			}
		}
		if line == nil && !tooLong {
			return false
		}
		s.n++
		if tooLong {
			s.rec, s.err = Record{}, &LineError{Line: s.n, Reason: reasonTooLong}
			return true
		}
		line = bytes.TrimSpace(line)
		if skipped(line) {
			continue
		}
		rec, reason := parse(string(line), s.opt)
		if reason != "" {
			s.rec, s.err = Record{}, &LineError{Line: s.n, Reason: reason}
			return true
		}
		rec.Line = s.n
		s.rec, s.err = rec, nil
		return true
	}
	return false
}

// Record is the record of the line Scan read, when LineErr is nil.
func (s *Scanner) Record() Record { return s.rec }

// LineErr is the *LineError of the line Scan read, nil if it is a record.
func (s *Scanner) LineErr() error { return s.err }

// Line is the number of the last line read, from 1.
func (s *Scanner) Line() int { return s.n }

// Err is the error that stopped reading, nil at the end of the input.
func (s *Scanner) Err() error { return s.ioErr }

// readLine returns the next line without its end, or tooLong after
// skipping a line longer than MaxLineBytes; a nil line and no tooLong at
// the end of the input.
func (s *Scanner) readLine() (line []byte, tooLong bool, err error) {
	line, err = s.r.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) {
		tooLong = true
		_, err = s.r.ReadSlice('\n')
	}
	if tooLong {
		return nil, true, err
	}
	if len(line) == 0 {
		return nil, false, err
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if len(bytes.TrimSuffix(line, []byte{'\r'})) > MaxLineBytes {
		return nil, true, err
	}
	return line, false, err
}

// skipped tells lines that hold no record: blank lines, # comments, and
// what secretsdump writes besides hashes (its banner, [*] and [+]
// messages).
func skipped(line []byte) bool {
	if len(line) == 0 || line[0] == '#' || bytes.HasPrefix(line, []byte("Impacket v")) {
		return true
	}
	return len(line) >= 3 && line[0] == '[' && line[2] == ']' && strings.IndexByte("*+-!", line[1]) >= 0
}

// decoded returns r read as UTF-8: a UTF-8 byte-order mark is dropped,
// UTF-16 (little- or big-endian, told by its mark) is converted.
func decoded(r io.Reader) *bufio.Reader {
	// Room for a longest line and its CR LF.
	br := bufio.NewReaderSize(r, MaxLineBytes+2)
	mark, _ := br.Peek(3)
	switch {
	case bytes.HasPrefix(mark, []byte{0xEF, 0xBB, 0xBF}):
		br.Discard(3)
	case bytes.HasPrefix(mark, []byte{0xFF, 0xFE}):
		br.Discard(2)
		return bufio.NewReaderSize(&utf16Reader{r: br}, MaxLineBytes+2)
	case bytes.HasPrefix(mark, []byte{0xFE, 0xFF}):
		br.Discard(2)
		return bufio.NewReaderSize(&utf16Reader{r: br, bigEndian: true}, MaxLineBytes+2)
	}
	return br
}

// utf16Reader converts UTF-16 to UTF-8; an unpaired surrogate becomes
// U+FFFD.
type utf16Reader struct {
	r         *bufio.Reader
	bigEndian bool
	pending   []byte // encoded bytes Read had no room for
	room      [utf8.UTFMax]byte
	held      uint16 // a unit read ahead, when heldSet
	heldSet   bool
}

// errOddUTF16 reports UTF-16 input of an odd number of bytes.
var errOddUTF16 = errors.New("dump: UTF-16 input ends in half a character")

func (u *utf16Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(u.pending) > 0 {
			k := copy(p[n:], u.pending)
			u.pending, n = u.pending[k:], n+k
			continue
		}
		if n > 0 && u.r.Buffered() < 2 && !u.heldSet {
			break // return what there is rather than wait for more
		}
		r, err := u.readRune()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if utf8.RuneLen(r) <= len(p)-n {
			n += utf8.EncodeRune(p[n:], r)
		} else {
			u.pending = u.room[:utf8.EncodeRune(u.room[:], r)]
		}
	}
	return n, nil
}

func (u *utf16Reader) readRune() (rune, error) {
	c, err := u.unit()
	if err != nil {
		return 0, err
	}
	if !utf16.IsSurrogate(rune(c)) {
		return rune(c), nil
	}
	next, err := u.unit()
	if err != nil {
		return utf8.RuneError, nil
	}
	if r := utf16.DecodeRune(rune(c), rune(next)); r != utf8.RuneError {
		return r, nil
	}
	u.held, u.heldSet = next, true // not a low surrogate: a rune of its own
	return utf8.RuneError, nil
}

func (u *utf16Reader) unit() (uint16, error) {
	if u.heldSet {
		u.heldSet = false
		return u.held, nil
	}
	a, err := u.r.ReadByte()
	if err != nil {
		return 0, err
	}
	b, err := u.r.ReadByte()
	if err != nil {
		return 0, errOddUTF16
	}
	if u.bigEndian {
		return uint16(a)<<8 | uint16(b), nil
	}
	return uint16(b)<<8 | uint16(a), nil
}
