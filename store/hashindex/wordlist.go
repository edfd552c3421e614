package hashindex

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"unicode/utf8"
)

const (
	// wordlistBlock is the buffer words are read through (a longer line is
	// skipped), and the most of an input, decompressed, that is checked for
	// binary content before an import begins: what its first reads give.
	wordlistBlock = 64 << 10
	// checkedBytes is the least of it checked, unless the input is
	// shorter: an import waits for that much of a pipe before it begins.
	checkedBytes = 4 << 10
)

// NotWordlistError reports an input an import refused before adding
// anything: compressed in a format it does not read, or binary.
type NotWordlistError struct {
	Name   string // the input's name (a file's path), or "the input"
	Reason string
}

func (e *NotWordlistError) Error() string {
	return fmt.Sprintf("hashindex: %s is not a wordlist of one word a line: %s; nothing was imported", e.Name, e.Reason)
}

// compressions are the formats an import recognises by their first bytes:
// gzip and bzip2 are read, the others named in the refusal.
var compressions = []struct {
	name  string
	magic string
	open  func(io.Reader) (io.Reader, error)
}{
	{"gzip", "\x1f\x8b", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
	{"bzip2", "BZh", func(r io.Reader) (io.Reader, error) { return bzip2.NewReader(r), nil }},
	{"xz", "\xfd7zXZ\x00", nil},
	{"zstd", "\x28\xb5\x2f\xfd", nil},
	{"zip", "PK\x03\x04", nil},
	{"7-Zip", "7z\xbc\xaf\x27\x1c", nil},
	{"lz4", "\x04\x22\x4d\x18", nil},
}

// wordlistInput is an import's input, decompressed, with its first block
// checked and buffered.
type wordlistInput struct {
	name  string
	words *bufio.Reader // the lines, decompressed
	// left is the input's bytes not yet buffered, when it tells them (a
	// plain strings.Reader or bytes.Reader, as a seed is).
	left func() (int, bool)
	// consumed is how much of a compressed input has been read (its own
	// bytes, for a progress report against the file's size); nil for a
	// plain input, whose lines count them.
	consumed func() int64
}

// openWordlist reads the first bytes of r: gzip and bzip2 (whatever the
// input's name) are decompressed, other compressed formats refused; then
// the first block of words (4 to 64 KiB: what the first reads give) is
// checked, and refused if it holds a NUL byte
// or more than one control character in a hundred (binary data has about
// ten), or starts with a UTF-16 byte order mark. Invalid UTF-8 alone is
// not refused: lists in Latin-1 or another 8-bit encoding are imported as
// bytes (and answered as $HEX[...]).
func openWordlist(r io.Reader) (*wordlistInput, error) {
	in := &wordlistInput{name: "the input"}
	if named, ok := r.(interface{ Name() string }); ok {
		in.name = named.Name()
	}
	size := wordlistBlock
	sized, known := r.(interface{ Len() int })
	if known {
		size = min(size, sized.Len()+1) // +1: a last line without a newline still fits
	}
	counter := &countingReader{r: r}
	raw := bufio.NewReaderSize(counter, max(size, 16))
	head, err := raw.Peek(8)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("hashindex: %s: %w", in.name, err)
	}
	in.words = raw
	if known {
		in.left = func() (int, bool) { return raw.Buffered() + sized.Len(), true }
	} else {
		in.left = func() (int, bool) { return 0, false }
	}
	for _, c := range compressions {
		if !bytes.HasPrefix(head, []byte(c.magic)) {
			continue
		}
		if c.open == nil {
			return nil, &NotWordlistError{Name: in.name, Reason: fmt.Sprintf("it is compressed with %s (decompress it first, or pipe it in: only gzip and bzip2 are read)", c.name)}
		}
		dec, err := c.open(raw)
		if err != nil {
			return nil, fmt.Errorf("hashindex: %s: %s: %w", in.name, c.name, err)
		}
		in.words = bufio.NewReaderSize(dec, wordlistBlock)
		in.left = func() (int, bool) { return 0, false }
		in.consumed = func() int64 { return counter.n - int64(raw.Buffered()) }
		break
	}
	if _, err := in.words.Peek(min(checkedBytes, in.words.Size())); err != nil && err != io.EOF {
		return nil, fmt.Errorf("hashindex: %s: %w", in.name, err)
	}
	block, _ := in.words.Peek(in.words.Buffered())
	if reason := binaryContent(block); reason != "" {
		return nil, &NotWordlistError{Name: in.name, Reason: reason}
	}
	return in, nil
}

// binaryContent says why block is not text, or "".
func binaryContent(block []byte) string {
	switch {
	case bytes.HasPrefix(block, []byte("\xff\xfe")) || bytes.HasPrefix(block, []byte("\xfe\xff")):
		return "it is UTF-16 text (convert it to UTF-8 first)"
	case bytes.IndexByte(block, 0) >= 0:
		return "it holds NUL bytes (binary data)"
	}
	controls := 0
	for _, c := range block {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r') || c == 0x7f {
			controls++
		}
	}
	if controls > 1 && controls*100 > len(block) {
		return fmt.Sprintf("%d of its first %d bytes are control characters (binary data)", controls, len(block))
	}
	return ""
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// The $HEX[...] form is hashcat's for a word that cannot be written as a
// line of text: the word's bytes in hex. An import reads a line in that
// form as the bytes; a lookup answers in it a word that is not valid UTF-8
// or holds a control character (a line break would split it, a NUL make
// the list binary), and a word that would be read as that form, so that
// answers import back as the same words.
const (
	hexOpen  = "$HEX["
	hexClose = "]"
)

// decodeHexForm returns the bytes a $HEX[...] line stands for, appended to
// dst, and whether line is one (an even number of hex digits, either case).
func decodeHexForm(dst, line []byte) ([]byte, bool) {
	if !bytes.HasPrefix(line, []byte(hexOpen)) || !bytes.HasSuffix(line, []byte(hexClose)) {
		return dst, false
	}
	digits := line[len(hexOpen) : len(line)-len(hexClose)]
	start := len(dst)
	dst = append(dst, make([]byte, len(digits)/2)...)
	if _, err := hex.Decode(dst[start:], digits); err != nil || len(digits)%2 != 0 {
		return dst[:start], false
	}
	return dst, true
}

// wordText is how a lookup answers a stored word: as it is when it is
// valid UTF-8 without control characters and not itself of the $HEX[...]
// shape, else in hashcat's $HEX[...] form with lower-case digits.
func wordText(word []byte) string {
	plain := utf8.Valid(word) && !(bytes.HasPrefix(word, []byte(hexOpen)) && bytes.HasSuffix(word, []byte(hexClose))) &&
		!slices.ContainsFunc(word, func(c byte) bool { return c < 0x20 || c == 0x7f })
	if plain {
		return string(word)
	}
	return hexOpen + hex.EncodeToString(word) + hexClose
}
