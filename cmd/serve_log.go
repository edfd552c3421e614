package cmd

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logFlushInterval is how long a log line may wait in logBuffer.
const logFlushInterval = 100 * time.Millisecond

// logBuffer gathers the server's log lines and writes them out together:
// every logFlushInterval, whenever 64 KiB have gathered, and at Close. Under
// load the access log is a line per request, and a write(2) per line cost
// more than the line itself; this makes it one write for many lines. The
// price: a crash (kill -9) loses at most the last interval's lines, never a
// committed call.
type logBuffer struct {
	mu      sync.Mutex
	w       *bufio.Writer
	stop    chan struct{}
	stopped chan struct{}
}

// newLogBuffer writes out every logFlushInterval; its goroutine ends at
// Close, which its owner calls.
func newLogBuffer(w io.Writer) *logBuffer {
	ticker := time.NewTicker(logFlushInterval)
	return flushOnTicks(w, ticker.C, ticker.Stop)
}

// flushOnTicks writes out at every tick, until Close, which calls
// stopTicks.
func flushOnTicks(w io.Writer, ticks <-chan time.Time, stopTicks func()) *logBuffer {
	b := &logBuffer{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(b.stopped)
		defer stopTicks()
		for {
			select {
			case <-b.stop:
				return
			case <-ticks:
				b.flush()
			}
		}
	}()
	return b
}

// Write buffers p; a log handler writes a whole line at a time.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Write(p)
}

func (b *logBuffer) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.w.Flush()
}

// Close stops the timer and writes out what is buffered.
func (b *logBuffer) Close() error {
	close(b.stop)
	<-b.stopped
	return b.flush()
}

// newLogger is serve's logger, writing lines in -log-format to w (the
// logBuffer over standard error).
func newLogger(format string, w io.Writer) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	default:
		return nil, fmt.Errorf("%w: -log-format must be text or json", ErrUsage)
	}
}
