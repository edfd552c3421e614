package server_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"syscall"
	"testing"
	"time"

	"secutil/server"
	"secutil/store"
)

// largestAnswerBody is the request of the largest answer a utility gives:
// base64 decoding a body of 1 MiB into text of control characters, each
// written as \u0001 in JSON, 4.7 MB.
func largestAnswerBody() []byte {
	raw := bytes.Repeat([]byte{1}, (1<<20-64)/4*3)
	return []byte(`{"text":"` + base64.StdEncoding.EncodeToString(raw) + `","option":"decode"}`)
}

// TestLargestAnswerFitsAShare: the largest answer is what the server
// takes it to be (a client's share of the answer budget must hold one).
func TestLargestAnswerFitsAShare(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	body := largestAnswerBody()
	if len(body) > 1<<20 {
		t.Fatalf("the request is %d bytes, over the 1 MiB bound", len(body))
	}
	res := e.post("/api/v1/base64", body, "X-API-Key", key).want(200)
	if n := len(res.body); n < 4_500_000 || n > server.LargestAnswer {
		t.Fatalf("the largest answer is %d bytes, want 4.5 MB to %d", n, server.LargestAnswer)
	}
}

// budgetUsed is the bytes of the named budget in use, from /metrics.
func budgetUsed(t *testing.T, e *env, budget string) float64 {
	t.Helper()
	return series(t, scrape(t, e), "secutil_budget_used_bytes", "budget", budget).GetGauge().GetValue()
}

// TestAnswerBudgetHoldsSlowReaders: answers larger than a pooled buffer
// count against the server's answer budget until their client has read
// them. Three clients (each its own account and address) that do not read
// the largest answer hold 3 × 4.7 MB of a 15 MiB budget; a fourth's call
// is then refused 503 busy with Retry-After and not counted; once the
// three have read their answers, byte for byte those of a call in memory,
// the budget is empty and the fourth's call goes through.
func TestAnswerBudgetHoldsSlowReaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(d *server.Deps) {
		d.AnswerBudget = 15 << 20
		d.MetricsToken = metricsToken
	})
	keys := make([]string, 4)
	for i := range keys {
		keys[i] = e.key(fmt.Sprintf("reader%d@example.com", i), store.PlanPro)
	}
	body := largestAnswerBody()
	want := e.post("/api/v1/base64", body, "X-API-Key", keys[3]).want(200).body
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close) // after the slow readers' connections are closed

	var readers []*bufio.Reader
	for i := range 3 {
		dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0." + strconv.Itoa(10+i))},
			Control: smallReceiveBuffer}
		conn, err := dialer.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		head := "POST /api/v1/base64 HTTP/1.1\r\nHost: secutil\r\nContent-Type: application/json\r\nX-API-Key: " + keys[i] +
			"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
		if _, err := conn.Write(append([]byte(head), body...)); err != nil {
			t.Fatal(err)
		}
		readers = append(readers, bufio.NewReaderSize(conn, 4096))
	}
	for deadline := time.Now().Add(20 * time.Second); budgetUsed(t, e, "answers") < 3*float64(len(want)); {
		if time.Now().After(deadline) {
			t.Fatalf("the three unread answers hold %v bytes of the answer budget, want 3 × %d", budgetUsed(t, e, "answers"), len(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
	fourth := e.accountOf("reader3@example.com").ID
	before := e.usage(fourth)
	res := e.post("/api/v1/base64", body, "X-API-Key", keys[3], "RemoteAddr", "127.0.0.13:1000")
	res.wantError(503, "busy")
	if res.header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q, want 1", res.header.Get("Retry-After"))
	}
	if after := e.usage(fourth); after != before {
		t.Errorf("the refused call was counted: usage %d, then %d", before, after)
	}

	for i, rd := range readers {
		got, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("reader %d: %v", i, err)
		}
		answer, err := io.ReadAll(got.Body)
		got.Body.Close()
		if err != nil || got.StatusCode != 200 || !bytes.Equal(answer, want) {
			t.Fatalf("reader %d: %d, %d bytes (%v), want 200 and the %d bytes of the answer in memory", i, got.StatusCode, len(answer), err, len(want))
		}
		if cl := got.Header.Get("Content-Length"); cl != strconv.Itoa(len(want)) {
			t.Errorf("reader %d: Content-Length %q, want %d", i, cl, len(want))
		}
	}
	for deadline := time.Now().Add(5 * time.Second); budgetUsed(t, e, "answers") != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%v bytes of the answer budget still in use after every answer was read", budgetUsed(t, e, "answers"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.post("/api/v1/base64", body, "X-API-Key", keys[3], "RemoteAddr", "127.0.0.13:1000").want(200)
}

// smallReceiveBuffer is a net.Dialer's Control that gives its socket a
// receive buffer of 4 KiB before it connects, so that the window it offers
// stays that small: a client that reads slowly, whose answer the server
// cannot hand to the kernel at once.
func smallReceiveBuffer(network, address string, c syscall.RawConn) error {
	var err error
	c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	return err
}
