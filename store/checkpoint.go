package store

import (
	"database/sql"
	"time"
)

// checkpointEvery is how often the checkpointer moves the WAL's new pages
// into the database file. It is also about how long a commit on SQLite
// waits for its fsync: synchronous=NORMAL syncs the WAL only at a
// checkpoint, so a power cut loses the commits of the last interval (more
// only while a long read keeps the checkpoint from reaching them), where
// SQLite's own rule, a checkpoint every 1,000 pages, could leave a quiet
// server's last hours unsynced.
const checkpointEvery = 250 * time.Millisecond

// checkpointer runs SQLite's checkpoints on a connection of its own, so
// that their fsyncs never stall a write. SQLite's automatic checkpoint,
// which the writer's connection turns off, runs inside the commit that
// takes the WAL past 1,000 pages: under metered load that was the meter's
// commit, and every call waiting for it waited 2.5-5 ms more, several
// times a second (docs/BENCHMARKS.md). A PASSIVE checkpoint takes no lock
// a writer or a reader needs; pages a reader still uses stay in the WAL
// until the next tick.
type checkpointer struct {
	db      *sql.DB
	stop    chan struct{}
	stopped chan struct{}
}

func startCheckpointer(dsn string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{db: db, stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.stopped)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
			// A failure (the disk full, say) leaves the pages in the WAL,
			// where reads still find them; the next tick tries again.
			c.db.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		}
	}
}

// close stops the checkpoints; the last connection to close checkpoints
// whatever is left.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.stopped
	return c.db.Close()
}
