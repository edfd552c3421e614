package cmd

import (
	"testing"
	"time"

	"secutil/cmd/cmdtest"
)

// Lines wait in the buffer until a tick, then go out together; Close
// writes out the rest. The ticks are the test's, so no timer races it.
func TestLogBufferWritesOnEveryTick(t *testing.T) {
	t.Parallel()
	out := &cmdtest.SyncBuffer{}
	ticks := make(chan time.Time)
	stopped := false
	b := flushOnTicks(out, ticks, func() { stopped = true })
	b.Write([]byte("one\n"))
	b.Write([]byte("two\n"))
	if out.String() != "" {
		t.Fatalf("written before a tick: %q; want the lines gathered", out.String())
	}
	// The second tick is taken only once the first one's flush is done.
	ticks <- time.Now()
	ticks <- time.Now()
	if out.String() != "one\ntwo\n" {
		t.Fatalf("after a tick: %q", out.String())
	}
	b.Write([]byte("three\n"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "one\ntwo\nthree\n" {
		t.Fatalf("Close did not write out the last line: %q", out.String())
	}
	if !stopped {
		t.Fatal("Close left the ticks running")
	}
}

// newLogBuffer's own ticker writes a line out without Close.
func TestLogBufferFlushesOnItsOwn(t *testing.T) {
	t.Parallel()
	out := &cmdtest.SyncBuffer{}
	b := newLogBuffer(out)
	defer b.Close()
	b.Write([]byte("one\n"))
	for deadline := time.Now().Add(10 * time.Second); out.String() != "one\n"; time.Sleep(logFlushInterval / 10) {
		if time.Now().After(deadline) {
			t.Fatalf("not written out 10 s after, with a flush every %v", logFlushInterval)
		}
	}
}
