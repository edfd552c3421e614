package breach

import (
	"context"
	"crypto/sha1"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Source is what the /data_breach handler queries.
type Source interface {
	Name() string
	// Count reports whether the digest is known and how often it was seen (0 = unknown).
	Count(digest []byte) (int64, bool, error)
	// CountMany answers many digests at once, in their order; a digest of
	// the wrong length fails the whole batch with ErrDigestLength.
	CountMany(ctx context.Context, digests [][]byte, progress Progress) ([]Hit, error)
	// Range lists every hash starting with the 5-hex prefix.
	Range(prefix string) ([]RangeEntry, error)
	Kind() Kind
}

// HasCounts reports whether s knows how often each password was seen: a
// Pwned Passwords file does, a word list does not.
func HasCounts(s Source) bool {
	_, ok := s.(fileSource)
	return ok
}

type fileSource struct{ f *File }

// NewFileSource serves a Pwned Passwords file.
func NewFileSource(f *File) Source { return fileSource{f} }

func (s fileSource) Name() string                              { return "pwned-passwords file" }
func (s fileSource) Count(digest []byte) (int64, bool, error)  { return s.f.Count(digest) }
func (s fileSource) Range(prefix string) ([]RangeEntry, error) { return s.f.Range(prefix) }
func (s fileSource) Kind() Kind                                { return s.f.Kind() }

func (s fileSource) CountMany(ctx context.Context, digests [][]byte, progress Progress) ([]Hit, error) {
	return s.f.CountMany(ctx, digests, progress)
}

// listSource holds the sorted upper-hex digests of a word list; upper-hex
// order equals byte order, so plain string search works.
type listSource struct {
	name string
	kind Kind
	// hashes are the words' digests in upper-case hex, sorted, made at the
	// first lookup: hashing the embedded list (30,000 words) takes about
	// 15 ms, which a server that is never asked need not spend at start.
	hashes func() []string
}

// NewListSource serves the words, hashed with the kind's hash at the first
// lookup. The list carries no counts: a found digest reports count 0
// (unknown). words must not change afterwards.
func NewListSource(name string, words []string, kind Kind) Source {
	return &listSource{name: name, kind: kind, hashes: sync.OnceValue(func() []string { return hashWords(words, kind) })}
}

// hashWords returns the words' digests in upper-case hex, sorted and
// without repeats. The digests are written into one string, and each hash
// is a substring of it: two allocations for the list, not two a word.
func hashWords(words []string, kind Kind) []string {
	width := kind.hexLen()
	var all strings.Builder
	all.Grow(len(words) * width)
	var hexDigest [2 * sha1.Size]byte
	for _, w := range words {
		all.Write(appendUpperHex(hexDigest[:0], kind.Hash(w)))
	}
	hashes := make([]string, len(words))
	for i, text := 0, all.String(); i < len(hashes); i++ {
		hashes[i] = text[i*width : (i+1)*width]
	}
	sort.Strings(hashes)
	return slices.Compact(hashes)
}

func (s *listSource) Name() string { return s.name }
func (s *listSource) Kind() Kind   { return s.kind }

func (s *listSource) Count(digest []byte) (int64, bool, error) {
	if len(digest) != s.kind.DigestLen() {
		return 0, false, ErrDigestLength
	}
	h, hashes := upperHex(digest), s.hashes()
	i := sort.SearchStrings(hashes, h)
	return 0, i < len(hashes) && hashes[i] == h, nil
}

// CountMany looks each digest up in the list: a binary search of memory
// each, about a microsecond.
func (s *listSource) CountMany(ctx context.Context, digests [][]byte, progress Progress) ([]Hit, error) {
	for _, d := range digests {
		if len(d) != s.kind.DigestLen() {
			return nil, ErrDigestLength
		}
	}
	hits := make([]Hit, len(digests))
	for i, d := range digests {
		if i%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		_, hits[i].Found, _ = s.Count(d) // the length is checked: no error
	}
	if progress != nil {
		progress(len(digests), len(digests))
	}
	return hits, nil
}

func (s *listSource) Range(prefix string) ([]RangeEntry, error) {
	p, err := normalizePrefix(prefix)
	if err != nil {
		return nil, err
	}
	entries, hashes := []RangeEntry{}, s.hashes()
	for i := sort.SearchStrings(hashes, p); i < len(hashes) && strings.HasPrefix(hashes[i], p); i++ {
		if len(entries) == MaxRangeEntries {
			return nil, ErrRangeTooLarge
		}
		entries = append(entries, RangeEntry{Suffix: hashes[i][PrefixLen:]})
	}
	return entries, nil
}
