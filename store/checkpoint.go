package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io/fs"
	"os"
	"strconv"
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

// walRestartBytes is how much WAL the checkpointer lets build up before
// it makes the log start again from its beginning (restartWAL). At the
// heaviest metered load measured, about 33 MB of WAL a second, that is a
// restart a second, and the file holds this plus a tick's growth at most,
// about 40 MiB, unless a long read holds the log.
const walRestartBytes = 32 << 20

// walSizeLimit is the most WAL file a restart leaves: SQLite's
// journal_size_limit cuts the file down to it at the first commit after
// the log restarts (also when the writer restarts it by itself on a quiet
// server), and a restart of a longer file truncates it at once. It is
// above what steady load leaves (walRestartBytes), so that cutting the
// file, which takes tens of milliseconds, only follows a long read.
const walSizeLimit = walRestartBytes + walRestartBytes/2

// restartWait bounds how long a restart holds the writer while it waits
// for reads that use the log to end: a metered call waits that long at
// most. The server's reads take milliseconds; a longer one (a backup) makes
// the restart give up and try again later (maxRestartBackoff).
const restartWait = 50 * time.Millisecond

// maxRestartBackoff is the most ticks the checkpointer lets pass after
// restarts that gave up: one after the first, twice as many after each
// next. During a backup under load, when the log cannot restart anyway,
// writes are held for restartWait once in 4 s rather than at every tick.
const maxRestartBackoff = 16

// Before a restart, the checkpointer runs up to maxCatchUp more passive
// checkpoints, until one copies fewer than catchUpFrames: under metered
// load the writer then waits for the copy of some tens of frames, not of
// the hundreds written during the first (measured: 7-22 ms held, against
// 14-40 ms without, on a shared two-core machine).
const (
	maxCatchUp    = 4
	catchUpFrames = 100
)

// walFrameHeader is the bytes each frame of the WAL holds before its page.
const walFrameHeader = 24

// checkpointer runs SQLite's checkpoints on a connection of its own, so
// that their fsyncs do not stall writes. SQLite's automatic checkpoint,
// which the writer's connection turns off, runs inside the commit that
// takes the WAL past 1,000 pages: under metered load that was the meter's
// commit, and every call waiting for it waited 2.5-5 ms more, several
// times a second (docs/BENCHMARKS.md). A PASSIVE checkpoint takes no lock
// a writer or a reader needs; pages a reader still uses stay in the WAL
// until the next tick.
//
// A passive checkpoint never shortens the log, though. The writer starts
// the WAL again from its beginning only when its transaction begins with
// every frame copied and no reader in the log: under steady writes the
// checkpoint never catches up, reads overlap, and the file grew without
// bound (33 MB a second at 20,000 metered calls a second). So once a
// passive checkpoint finds more than walRestartBytes of WAL, the
// checkpointer catches up (maxCatchUp), then holds the writer's connection,
// so that no write adds a frame, and runs a RESTART checkpoint on it: that
// copies the last frames, waits for the reads in the log to end
// (restartWait at most) and leaves the log to start again at the next
// write, which overwrites the file from its beginning. Writes wait for
// that, some milliseconds once in walRestartBytes of WAL; the passive
// checkpoints in between cost them nothing.
type checkpointer struct {
	db    *sql.DB // the checkpointer's own connection, for passive checkpoints
	write *sql.DB // the writer's, held through a restart
	// walPath is the WAL's file, whose size Stats reports.
	walPath string
	// restartBytes and sizeLimit are walRestartBytes and walSizeLimit, or
	// less in a test.
	restartBytes, sizeLimit int64

	stop    chan struct{}
	stopped chan struct{}
}

// startCheckpointer starts the checkpoints of the database file at path,
// which dsn opens and write writes, restarting the WAL past restartBytes
// and leaving sizeLimit of its file; write's journal_size_limit must be
// sizeLimit too. Its connection opens at the first tick: a command that
// opens the store for a moment does not pay for a connection (a fresh
// one parses the whole schema) that would never checkpoint.
func startCheckpointer(dsn, path string, write *sql.DB, restartBytes, sizeLimit int64) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	c := &checkpointer{
		db:           db,
		write:        write,
		walPath:      path + "-wal",
		restartBytes: restartBytes,
		sizeLimit:    sizeLimit,
		stop:         make(chan struct{}),
		stopped:      make(chan struct{}),
	}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.stopped)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	// restarted is the frames of the log the last restart left, which it
	// holds until the next write starts it again.
	restarted := int64(-1)
	var backoff, skip int // ticks, after restarts that gave up
	// restartFrames is restartBytes in frames of the database's pages,
	// once the connection has read the page size.
	var restartFrames int64
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		if restartFrames == 0 {
			var pageSize int64
			if err := c.db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil {
				continue
			}
			restartFrames = c.restartBytes / (walFrameHeader + pageSize)
		}
		// A failure (the disk full, say) leaves the pages in the WAL,
		// where reads still find them; the next tick tries again.
		frames, copied, err := c.passive()
		if err != nil || frames < restartFrames || frames == restarted {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if restarted = c.restartWAL(copied); restarted >= 0 {
			backoff = 0
		} else {
			backoff = min(max(2*backoff, 1), maxRestartBackoff)
			skip = backoff
		}
	}
}

// restartWAL copies the rest of the WAL into the database file and lets
// the next write start the log again, holding the writer's connection. A
// file longer than sizeLimit it truncates at once: no write may come to
// cut it. It returns the frames the log holds until that write, or -1
// when a read kept using the log for restartWait.
func (c *checkpointer) restartWAL(copied int64) int64 {
	// Catch up first, without holding the writer: each passive checkpoint
	// copies what was written during the one before, fewer frames each
	// time, so that the writer waits for the copy of the last few only.
	for range maxCatchUp {
		before := copied
		var err error
		if _, copied, err = c.passive(); err != nil || copied-before < catchUpFrames {
			break
		}
	}
	ctx := context.Background()
	conn, err := c.write.Conn(ctx)
	if err != nil {
		return -1
	}
	defer conn.Close()
	mode := "RESTART"
	if size, err := c.walBytes(); err == nil && size > c.sizeLimit {
		mode = "TRUNCATE"
	}
	var busy, frames int64
	_, err = conn.ExecContext(ctx, busyTimeoutPragma(restartWait))
	if err == nil {
		err = conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &copied)
		// The writer's own wait again, whatever the checkpoint gave; a
		// connection left without it goes, and the pool opens another.
		if _, restoreErr := conn.ExecContext(ctx, busyTimeoutPragma(busyTimeout)); restoreErr != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
			err = restoreErr
		}
	}
	if err != nil || busy != 0 {
		return -1
	}
	return frames
}

// passive runs a PASSIVE checkpoint and returns the frames the log holds
// and how many of them are copied into the database file.
func (c *checkpointer) passive() (frames, copied int64, err error) {
	var busy int64
	err = c.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, copied, err
}

// walBytes is the size of the WAL's file, 0 when there is none.
func (c *checkpointer) walBytes() (int64, error) {
	fi, err := os.Stat(c.walPath)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// close stops the checkpoints; the last connection to close checkpoints
// whatever is left.
func (c *checkpointer) close() error {
	close(c.stop)
	<-c.stopped
	return c.db.Close()
}

// busyTimeoutPragma sets a connection's busy timeout to d.
func busyTimeoutPragma(d time.Duration) string {
	return "PRAGMA busy_timeout = " + strconv.FormatInt(d.Milliseconds(), 10)
}
