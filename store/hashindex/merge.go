package hashindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Runs are merged by size tier, in the background of an import: a tier holds runs
// mergeFanout times larger than the tier below (the lowest holds everything under
// defaultTierBase entries), and when a tier has mergeFanout runs, they are merged into one new
// file of the next tier, which one short transaction swaps in for them. An algorithm with
// N entries therefore has at most (mergeFanout-1) runs per tier, O(log N) in all, and every
// entry is rewritten once per tier it climbs: about twice up to 100 M words.
const mergeFanout = 8

// defaultTierBase is the size in entries below which all runs share the lowest tier
// (smaller in tests, to merge across several tiers). An import batch's runs are in it.
const defaultTierBase int64 = 1 << 19

// maxLowRuns is how many lowest-tier runs an algorithm may have before the import waits
// for the merges to catch up, which bounds the runs a lookup reads.
const maxLowRuns = 4 * mergeFanout

// tier is the tier of a run of the given entries, when the lowest tier holds the runs
// under base entries.
func tier(entries, base int64) int {
	t := 0
	for n := entries; n >= base; n /= mergeFanout {
		t++
	}
	return t
}

// nextMerge picks the runs to merge next: the oldest mergeFanout runs of the lowest full
// tier of any algorithm, leaving out the runs another merge is reading, or nil.
func nextMerge(s *runSet, busy map[*runFile]bool, tierBase int64) []*runFile {
	var best []*runFile
	bestTier := -1
	for _, runs := range s.runs {
		byTier := map[int][]*runFile{}
		for _, r := range runs { // oldest first
			if busy[r] {
				continue
			}
			t := tier(r.layout.entries, tierBase)
			if byTier[t] = append(byTier[t], r); len(byTier[t]) == mergeFanout && (bestTier < 0 || t < bestTier) {
				best, bestTier = byTier[t], t
			}
		}
	}
	return best
}

// mergesBehind reports whether some algorithm has more than maxLowRuns runs in the
// lowest tier.
func mergesBehind(s *runSet, tierBase int64) bool {
	for _, runs := range s.runs {
		low := 0
		for _, r := range runs {
			if tier(r.layout.entries, tierBase) == 0 {
				low++
			}
		}
		if low > maxLowRuns {
			return true
		}
	}
	return false
}

// runMerges merges runs while some tier is full, waiting for wake between rounds, until
// finish is closed and nothing is left to merge.
func (ix *Index) runMerges(ctx context.Context, wake, finish <-chan struct{}) error {
	finishing := false
	for {
		s, inputs := ix.claimMerge()
		if inputs == nil {
			ix.release(s)
			if finishing {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-wake:
			case <-finish:
				finishing = true
			}
			continue
		}
		err := ix.merge(ctx, inputs)
		ix.mu.Lock()
		for _, r := range inputs {
			delete(ix.merging, r)
		}
		ix.mu.Unlock()
		ix.release(s)
		if err != nil {
			return err
		}
	}
}

// claimMerge acquires the current set and picks the next merge in it, marking its inputs
// as being merged.
func (ix *Index) claimMerge() (*runSet, []*runFile) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s := ix.current
	s.holders++
	inputs := nextMerge(s, ix.merging, ix.sizes.tierBase)
	for _, r := range inputs {
		ix.merging[r] = true
	}
	return s, inputs
}

// merge writes the entries of inputs (runs of one algorithm, held by the caller) into one
// new run file and swaps it in for them in one transaction. The write-ahead log sees only
// that transaction's few rows, however large the runs.
func (ix *Index) merge(ctx context.Context, inputs []*runFile) error {
	a := inputs[0].a
	var n int64
	readers := make([]*runReader, 0, len(inputs))
	heads := make([]entry, 0, len(inputs))
	for _, r := range inputs {
		n += r.layout.entries
		rr := newRunReader(r)
		e, ok, err := rr.next()
		if err != nil {
			return err
		}
		if ok {
			readers, heads = append(readers, rr), append(heads, e)
		}
	}
	w, err := createRun(ix.dir, a, n)
	if err != nil {
		return err
	}
	for step := 0; len(readers) > 0; step++ {
		if step%(1<<16) == 0 && ctx.Err() != nil {
			w.abort(ix.dir)
			return ctx.Err()
		}
		i := 0
		for j := 1; j < len(heads); j++ {
			if heads[j].key < heads[i].key {
				i = j
			}
		}
		if err := w.add(heads[i]); err != nil {
			w.abort(ix.dir)
			return err
		}
		e, ok, err := readers[i].next()
		switch {
		case err != nil:
			w.abort(ix.dir)
			return err
		case ok:
			heads[i] = e
		default:
			readers = append(readers[:i], readers[i+1:]...)
			heads = append(heads[:i], heads[i+1:]...)
		}
	}
	out, err := w.finish(ix.dir)
	if err != nil {
		return err
	}
	if err := ix.swapIn(ctx, out, inputs); err != nil {
		out.close()
		os.Remove(filepath.Join(ix.dir, out.name))
		return err
	}
	// Lookups holding the old set keep reading the open files; the space is freed when
	// the last one releases them. A reload opening files the table listed before the
	// swap finishes first (lockRuns).
	unlock, err := lockRuns(ix.dir, true)
	if err != nil {
		return err
	}
	defer unlock()
	for _, r := range inputs {
		os.Remove(filepath.Join(ix.dir, r.name))
	}
	return nil
}

// swapIn lists out in the runs table instead of inputs, in one transaction.
func (ix *Index) swapIn(ctx context.Context, out *runFile, inputs []*runFile) error {
	tx, err := ix.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if out.id, err = insertRun(ctx, tx, out); err != nil {
		return err
	}
	for _, r := range inputs {
		res, err := tx.ExecContext(ctx, "DELETE FROM runs WHERE id = ?", r.id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("hashindex: run %d changed during its merge (%d rows, %v)", r.id, n, err)
		}
	}
	return ix.commitRuns(tx, out.id, []*runFile{out}, inputs)
}
