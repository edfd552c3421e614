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

// A lookup of many digests is two queries: one fetches, for every digest, the chunk of
// each run that can hold its key, the other the word blocks those chunks point to. A
// query costs more in database/sql and the driver than in SQLite itself, so for a
// 500-digest request this is a third faster than two queries per digest; for one digest,
// the JSON costs more than it saves, and plain per-algorithm queries answer.

// runChunksSQL selects, for every run of an algorithm, the last chunk starting at or
// before a key (NULL when the run starts after it).
const runChunksSQL = `SELECT (SELECT entries FROM chunks WHERE run_id = runs.id AND first_key <= ?1
	ORDER BY first_key DESC LIMIT 1) FROM runs WHERE algorithm = ?2`

// probeChunksSQL takes a JSON array of probes [digest number, key, algorithm] and selects,
// for each probe and each run of its algorithm, the last chunk starting at or before the
// key (NULL when the run starts after it).
const probeChunksSQL = `SELECT p.value ->> 0, runs.algorithm, (SELECT entries FROM chunks
	WHERE run_id = runs.id AND first_key <= p.value ->> 1 ORDER BY first_key DESC LIMIT 1)
	FROM json_each(?) AS p JOIN runs ON runs.algorithm = p.value ->> 2`

// readBlocksSQL takes a JSON array of block ids.
const readBlocksSQL = `SELECT id, words FROM word_blocks WHERE id IN (SELECT value FROM json_each(?))`

// lookupStatements are the queries of a lookup, prepared once: parsing them again for
// every lookup took a third of its time.
type lookupStatements struct {
	runChunks, block    *sql.Stmt // one digest
	probeChunks, blocks *sql.Stmt // many
}

func prepareLookups(db *sql.DB) (lookupStatements, error) {
	var l lookupStatements
	for stmt, query := range map[**sql.Stmt]string{&l.runChunks: runChunksSQL, &l.block: readBlockSQL,
		&l.probeChunks: probeChunksSQL, &l.blocks: readBlocksSQL} {
		var err error
		if *stmt, err = db.Prepare(query); err != nil {
			return l, errors.Join(err, l.close())
		}
	}
	return l, nil
}

// in returns the statements bound to a transaction.
func (l lookupStatements) in(ctx context.Context, tx *sql.Tx) lookupStatements {
	return lookupStatements{runChunks: tx.StmtContext(ctx, l.runChunks), block: tx.StmtContext(ctx, l.block),
		probeChunks: tx.StmtContext(ctx, l.probeChunks), blocks: tx.StmtContext(ctx, l.blocks)}
}

// close closes the statements prepared so far.
func (l lookupStatements) close() error {
	var errs []error
	for _, stmt := range []*sql.Stmt{l.runChunks, l.block, l.probeChunks, l.blocks} {
		if stmt != nil {
			errs = append(errs, stmt.Close())
		}
	}
	return errors.Join(errs...)
}

// candidate is a word filed under a digest's key: digest number, algorithm, word.
type lookupCandidate struct {
	digest    int
	algorithm *algorithm
	ref       wordRef
}

// lookup answers the queries, in order. For each digest the first algorithm (in the
// query's order: md5 before ntlm) whose candidate word rehashes to the digest wins.
func lookup(ctx context.Context, stmts lookupStatements, queries []query) ([]Hit, error) {
	hits := make([]Hit, len(queries))
	for i, q := range queries {
		hits[i] = Hit{Hash: q.input}
	}
	var candidates []lookupCandidate
	var blocks map[int64][]byte
	var err error
	if len(queries) == 1 {
		candidates, blocks, err = lookupOne(ctx, stmts, queries[0])
	} else {
		candidates, blocks, err = lookupMany(ctx, stmts, queries)
	}
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
			hits[c.digest] = Hit{Hash: queries[c.digest].input, Plaintext: string(word), Algorithm: c.algorithm.name, Found: true}
		}
	}
	return hits, nil
}

// lookupOne finds the candidates of one digest, and their blocks, query by query.
func lookupOne(ctx context.Context, stmts lookupStatements, q query) ([]lookupCandidate, map[int64][]byte, error) {
	var candidates []lookupCandidate
	blocks := map[int64][]byte{}
	key := prefixKey(q.digest)
	for _, a := range q.algorithms {
		refs, err := findRefs(ctx, stmts.runChunks, a, key)
		if err != nil {
			return nil, nil, err
		}
		for _, ref := range refs {
			candidates = append(candidates, lookupCandidate{algorithm: a, ref: ref})
			if blocks[ref.block()] == nil {
				if blocks[ref.block()], err = readBlock(ctx, stmts.block, ref.block()); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return candidates, blocks, nil
}

// lookupMany finds the candidates of all the digests, and their blocks, in two queries.
func lookupMany(ctx context.Context, stmts lookupStatements, queries []query) ([]lookupCandidate, map[int64][]byte, error) {
	probes := []byte{'['}
	for i, q := range queries {
		for _, a := range q.algorithms {
			if len(probes) > 1 {
				probes = append(probes, ',')
			}
			probes = append(append(strconv.AppendInt(append(probes, '['), int64(i), 10), ','), strconv.FormatInt(prefixKey(q.digest), 10)...)
			probes = append(strconv.AppendQuote(append(probes, ','), a.name), ']')
		}
	}
	candidates, err := probeChunks(ctx, stmts.probeChunks, queries, append(probes, ']'))
	if err != nil || len(candidates) == 0 {
		return nil, nil, err
	}
	blocks, err := readBlocks(ctx, stmts.blocks, candidates)
	return candidates, blocks, err
}

// probeChunks runs the probes and returns the words filed under each digest's key.
func probeChunks(ctx context.Context, stmt *sql.Stmt, queries []query, probes []byte) ([]lookupCandidate, error) {
	rows, err := stmt.QueryContext(ctx, string(probes))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var candidates []lookupCandidate
	var refs []wordRef
	for rows.Next() {
		var digest int
		var name string
		var chunk sql.RawBytes
		if err := rows.Scan(&digest, &name, &chunk); err != nil {
			return nil, err
		}
		refs = searchChunk(chunk, prefixKey(queries[digest].digest), refs[:0])
		for _, ref := range refs {
			candidates = append(candidates, lookupCandidate{digest: digest, algorithm: algorithmsByName[name], ref: ref})
		}
	}
	return candidates, rows.Err()
}

// readBlocks returns the word blocks the candidates point to, by id.
func readBlocks(ctx context.Context, stmt *sql.Stmt, candidates []lookupCandidate) (map[int64][]byte, error) {
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
	rows, err := stmt.QueryContext(ctx, string(append(ids, ']')))
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
