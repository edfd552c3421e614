package hashindex

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// runsLockName is the runs lock's file in the run directory (lockRuns).
const runsLockName = "runs.lock"

// runSet is the list of runs at one generation of the runs table (the largest run id,
// which every change raises: a batch adds runs, a merge adds its output before removing
// its inputs). A set is immutable; the Index holds the current one and replaces it after
// every commit that changes the runs, and when a lookup finds that another process (an
// import beside the server) has changed them.
type runSet struct {
	generation int64
	runs       [][]*runFile // by algorithm index, oldest first
	holders    int          // the Index, if current, plus each acquire; guarded by Index.mu
}

func (s *runSet) files() []*runFile {
	var all []*runFile
	for _, runs := range s.runs {
		all = append(all, runs...)
	}
	return all
}

// acquire returns the current set; release it when done. Its files stay open until then,
// even if a merge replaces and deletes them.
func (ix *Index) acquire() *runSet {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.current.holders++
	return ix.current
}

func (ix *Index) release(s *runSet) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.releaseLocked(s)
}

func (ix *Index) releaseLocked(s *runSet) {
	if s.holders--; s.holders > 0 {
		return
	}
	for _, f := range s.files() {
		if f.sets--; f.sets == 0 {
			delete(ix.open, f.name)
			f.close()
		}
	}
}

// install makes s (acquired by the caller, whose hold it keeps) the current set unless
// the current one is at least as new. Every file of s must be held: in ix.open with
// sets counting s, which newSetLocked arranges.
func (ix *Index) installLocked(s *runSet) {
	if s.generation <= ix.current.generation {
		return
	}
	s.holders++
	old := ix.current
	ix.current = s
	ix.releaseLocked(old)
}

// newSetLocked builds a set of runs, held once (by the caller), counting the set in each
// file and registering new files in ix.open.
func (ix *Index) newSetLocked(generation int64, runs []*runFile) *runSet {
	s := &runSet{generation: generation, runs: make([][]*runFile, len(algorithmList)), holders: 1}
	for _, f := range runs {
		if open, ok := ix.open[f.name]; ok && open != f {
			f.close() // opened twice by a race of reloads: keep the registered one
			f = open
		}
		ix.open[f.name] = f
		f.sets++
		s.runs[f.a.index()] = append(s.runs[f.a.index()], f)
	}
	for _, list := range s.runs {
		slices.SortFunc(list, func(a, b *runFile) int { return int(a.id - b.id) })
	}
	return s
}

// commitRuns commits tx, which changed the runs table to generation, and installs the
// change in memory: the current set without the removed runs, with the added ones.
// Commits and installs are serialised so that sets are installed in commit order.
func (ix *Index) commitRuns(tx *sql.Tx, generation int64, added, removed []*runFile) error {
	ix.commitMu.Lock()
	defer ix.commitMu.Unlock()
	if err := tx.Commit(); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var runs []*runFile
	for _, f := range ix.current.files() {
		if !slices.Contains(removed, f) {
			runs = append(runs, f)
		}
	}
	s := ix.newSetLocked(generation, append(runs, added...))
	ix.installLocked(s)
	ix.releaseLocked(s)
	return nil
}

const generationSQL = "SELECT COALESCE(MAX(id), 0) FROM runs"

// fresh returns the current set, acquired, after making sure it is the one the runs table
// lists (another process may have imported since): a lookup calls it first.
func (ix *Index) fresh(ctx context.Context) (*runSet, error) {
	s := ix.acquire()
	var generation int64
	if err := ix.lookups.generation.QueryRowContext(ctx).Scan(&generation); err != nil {
		ix.release(s)
		return nil, err
	}
	if generation <= s.generation {
		return s, nil
	}
	ix.release(s)
	return ix.reloadListed(ctx)
}

// reloadListed is reload through the readers. Where the runs lock is not available, a
// merge in another process may delete a file between our reading the table and opening
// it; the table read again then lists its replacement.
func (ix *Index) reloadListed(ctx context.Context) (s *runSet, err error) {
	for range 5 {
		if s, err = ix.reload(ctx, ix.reader); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	return s, err
}

// runRow is a row of the runs table.
type runRow struct {
	id, entries     int64
	algorithm, file string
}

// reload reads the runs table through db and makes it the current set (if newer), and
// returns it acquired.
func (ix *Index) reload(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (*runSet, error) {
	list, runs, files, err := ix.openListed(ctx, db)
	if err != nil {
		return nil, err
	}
	// The files opened are read (fences and filter) once the runs lock is released.
	var generation int64
	for i, r := range list {
		generation = max(generation, r.id)
		if files[i] != nil && err == nil {
			runs[i], err = readRun(files[i], r.id, r.file, algorithmsByName[r.algorithm], r.entries)
		} else if files[i] != nil {
			files[i].Close()
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err != nil {
		ix.unpinLocked(runs, files)
		for i, f := range runs {
			if f != nil && files[i] != nil {
				f.close()
			}
		}
		return nil, err
	}
	s := ix.newSetLocked(generation, runs)
	ix.unpinLocked(runs, files)
	ix.installLocked(s)
	return s, nil
}

// openListed reads the runs table and, holding the runs lock shared (lockRuns), opens
// the files it lists: runs[i] is the open run of list[i] if this Index has it open (then
// pinned, counted as held, until unpinLocked, so that a release meanwhile cannot close
// it), else files[i] is the file, opened.
func (ix *Index) openListed(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (list []runRow, runs []*runFile, files []*os.File, err error) {
	unlock, err := lockRuns(ix.dir, false)
	if err != nil {
		return nil, nil, nil, err
	}
	defer unlock()
	rows, err := db.QueryContext(ctx, "SELECT id, algorithm, entries, file FROM runs ORDER BY id")
	if err != nil {
		return nil, nil, nil, err
	}
	for rows.Next() {
		var r runRow
		if err := rows.Scan(&r.id, &r.algorithm, &r.entries, &r.file); err != nil {
			rows.Close()
			return nil, nil, nil, err
		}
		list = append(list, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, nil, err
	}
	runs, files = make([]*runFile, len(list)), make([]*os.File, len(list))
	ix.mu.Lock()
	for i, r := range list {
		if f, ok := ix.open[r.file]; ok {
			f.sets++
			runs[i] = f
		}
	}
	ix.mu.Unlock()
	for i, r := range list {
		if _, ok := algorithmsByName[r.algorithm]; !ok {
			err = fmt.Errorf("%w: run %d has algorithm %q", errDamaged, r.id, r.algorithm)
		} else if runs[i] == nil {
			files[i], err = os.Open(filepath.Join(ix.dir, r.file))
		}
		if err != nil {
			for _, f := range files {
				if f != nil {
					f.Close()
				}
			}
			ix.mu.Lock()
			defer ix.mu.Unlock()
			ix.unpinLocked(runs, files)
			return nil, nil, nil, err
		}
	}
	return list, runs, files, nil
}

// unpinLocked releases the runs openListed pinned: those that it did not open itself.
func (ix *Index) unpinLocked(runs []*runFile, files []*os.File) {
	for i, f := range runs {
		if f != nil && files[i] == nil {
			if f.sets--; f.sets == 0 {
				delete(ix.open, f.name)
				f.close()
			}
		}
	}
}

// removeOrphans deletes the run files the runs table does not list: files of a batch or a
// merge that an interrupted import wrote but never committed. Only an import, holding the
// import lock, calls it.
func (ix *Index) removeOrphans(ctx context.Context, tx *sql.Tx) error {
	listed := map[string]bool{}
	rows, err := tx.QueryContext(ctx, "SELECT file FROM runs")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		listed[name] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(ix.dir)
	if err != nil {
		return err
	}
	unlock, err := lockRuns(ix.dir, true)
	if err != nil {
		return err
	}
	defer unlock()
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".run") && !listed[e.Name()] {
			if err := os.Remove(filepath.Join(ix.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// Check verifies the index: SQLite's integrity check of its file, and that every run the
// table lists is a complete file. orphans counts the run files no row lists, which an
// interrupted import leaves and the next import deletes.
func (ix *Index) Check(ctx context.Context) (orphans int, err error) {
	var result string
	if err := ix.reader.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return 0, err
	}
	if result != "ok" {
		return 0, fmt.Errorf("%w: %s", errDamaged, result)
	}
	s, err := ix.fresh(ctx)
	if err != nil {
		return 0, err
	}
	defer ix.release(s)
	listed := map[string]bool{}
	for _, f := range s.files() {
		listed[f.name] = true
	}
	entries, err := os.ReadDir(ix.dir)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".run") && !listed[e.Name()] {
			orphans++
		}
	}
	return orphans, nil
}

// RunCount is how many runs an algorithm has, and the entries of the largest.
type RunCount struct {
	Algorithm string
	Runs      int
	Largest   int64
}

// RunCounts describes the runs of each algorithm that has any, in Algorithms order.
func (ix *Index) RunCounts(ctx context.Context) ([]RunCount, error) {
	s, err := ix.fresh(ctx)
	if err != nil {
		return nil, err
	}
	defer ix.release(s)
	var counts []RunCount
	for i, runs := range s.runs {
		if len(runs) == 0 {
			continue
		}
		c := RunCount{Algorithm: algorithmList[i].name, Runs: len(runs)}
		for _, r := range runs {
			c.Largest = max(c.Largest, r.layout.entries)
		}
		counts = append(counts, c)
	}
	return counts, nil
}
