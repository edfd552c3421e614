package hashindex

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
)

// A lookup reads, for each digest and each run of each algorithm the digest may be, the
// run's Bloom filter and, when the filter does not rule the key out, the one chunk that can
// hold it (runfile.go); then the word blocks of the candidates, in one query, and rehashes
// each candidate word. Its cost depends on the number of runs, O(log N), not on their size.

// readBlocksSQL takes a JSON array of block ids.
const readBlocksSQL = `SELECT id, words FROM word_blocks WHERE id IN (SELECT value FROM json_each(?))`

// lookupStatements are the queries of a lookup, prepared once: parsing them again for
// every lookup took a third of its time.
type lookupStatements struct {
	generation, block, blocks *sql.Stmt
}

func prepareLookups(db *sql.DB) (lookupStatements, error) {
	var l lookupStatements
	for stmt, query := range map[**sql.Stmt]string{&l.generation: generationSQL, &l.block: readBlockSQL, &l.blocks: readBlocksSQL} {
		var err error
		if *stmt, err = db.Prepare(query); err != nil {
			return l, errors.Join(err, l.close())
		}
	}
	return l, nil
}

// close closes the statements prepared so far.
func (l lookupStatements) close() error {
	var errs []error
	for _, stmt := range []*sql.Stmt{l.generation, l.block, l.blocks} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	return errors.Join(errs...)
}

// lookupCandidate is a word filed under a digest's key: digest number, algorithm, word.
type lookupCandidate struct {
	digest    int
	algorithm *algorithm
	ref       wordRef
}

// probe is one (digest, algorithm) pair to look up.
type probe struct {
	digest int
	a      *algorithm
	key    uint64
}

// lookup answers the queries, in order. For each digest the first algorithm (in the
// query's order: md5 before ntlm) whose candidate word rehashes to the digest wins.
func (ix *Index) lookup(ctx context.Context, queries []query) ([]Hit, error) {
	set, err := ix.fresh(ctx)
	if err != nil {
		return nil, err
	}
	defer ix.release(set)
	hits := make([]Hit, len(queries))
	var probes []probe
	for i, q := range queries {
		hits[i] = Hit{Hash: q.input}
		for _, a := range q.algorithms {
			probes = append(probes, probe{digest: i, a: a, key: prefixKey(q.digest)})
		}
	}
	candidates, err := findCandidates(set, probes)
	if err != nil || len(candidates) == 0 {
		return hits, err
	}
	blocks, err := ix.readBlocks(ctx, candidates)
	if err != nil {
		return nil, err
	}
	// By digest, then by the digest's algorithm preference.
	slices.SortStableFunc(candidates, func(a, b lookupCandidate) int {
		order := queries[a.digest].algorithms
		return cmp.Or(cmp.Compare(a.digest, b.digest),
			cmp.Compare(slices.Index(order, a.algorithm), slices.Index(order, b.algorithm)))
	})
	for _, c := range candidates {
		if hits[c.digest].Found {
			continue
		}
		block, ok := blocks[c.ref.block()]
		if !ok {
			return nil, errMissingBlock(c.ref.block())
		}
		_, word, err := wordAt(block, c.ref)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(c.algorithm.sum(word), queries[c.digest].digest) {
			hits[c.digest] = Hit{Hash: queries[c.digest].input, Plaintext: wordText(word), Algorithm: c.algorithm.name, Found: true}
		}
	}
	return hits, nil
}

// findCandidates runs the probes against the runs of set. Sorted by algorithm and key,
// neighbouring probes of a run share its chunk reads.
func findCandidates(set *runSet, probes []probe) ([]lookupCandidate, error) {
	slices.SortFunc(probes, func(x, y probe) int {
		return cmp.Or(cmp.Compare(x.a.index(), y.a.index()), cmp.Compare(x.key, y.key))
	})
	var candidates []lookupCandidate
	var refs []wordRef
	p := newProber(nil)
	for start := 0; start < len(probes); {
		end := start + 1
		for end < len(probes) && probes[end].a == probes[start].a {
			end++
		}
		for _, r := range set.runs[probes[start].a.index()] {
			p.reset(r)
			for _, pr := range probes[start:end] {
				var err error
				if refs, err = p.find(pr.key, refs[:0]); err != nil {
					return nil, err
				}
				for _, ref := range refs {
					candidates = append(candidates, lookupCandidate{digest: pr.digest, algorithm: pr.a, ref: ref})
				}
			}
		}
		start = end
	}
	return candidates, nil
}

// readBlocks returns the word blocks the candidates point to, by id: one query for all.
func (ix *Index) readBlocks(ctx context.Context, candidates []lookupCandidate) (map[int64][]byte, error) {
	if id := candidates[0].ref.block(); !slices.ContainsFunc(candidates, func(c lookupCandidate) bool { return c.ref.block() != id }) {
		block, err := readBlock(ctx, ix.lookups.block, id)
		return map[int64][]byte{id: block}, err
	}
	ids := []byte{'['}
	seen := map[int64]bool{}
	for _, c := range candidates {
		if id := c.ref.block(); !seen[id] {
			if len(seen) > 0 {
				ids = append(ids, ',')
			}
			seen[id] = true
			ids = strconv.AppendInt(ids, id, 10)
		}
	}
	rows, err := ix.lookups.blocks.QueryContext(ctx, string(append(ids, ']')))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	blocks := make(map[int64][]byte, len(seen))
	for rows.Next() {
		var id int64
		var block []byte
		if err := rows.Scan(&id, &block); err != nil {
			return nil, err
		}
		blocks[id] = block
	}
	return blocks, rows.Err()
}
