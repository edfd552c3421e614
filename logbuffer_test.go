package main

import (
	"strings"
	"testing"
	"time"
)

func TestLogBufferWritesWithinTheInterval(t *testing.T) {
	out := &syncBuffer{}
	b := newLogBuffer(out)
	b.Write([]byte("one\n"))
	b.Write([]byte("two\n"))
	if out.String() != "" {
		t.Fatalf("written at once: %q; want the lines gathered", out.String())
	}
	deadline := time.Now().Add(10 * logFlushInterval)
	for out.String() != "one\ntwo\n" {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %q", 10*logFlushInterval, out.String())
		}
		time.Sleep(logFlushInterval / 10)
	}
	b.Write([]byte("three\n"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "two\nthree\n") {
		t.Fatalf("Close did not write out the last line: %q", out.String())
	}
}
