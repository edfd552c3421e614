package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"secutil/internal/procstatus"
	"secutil/store/storetest"
)

// TestPeakRSSOfSlowReaders measures the built binary under issue 37's M4:
// 500 clients at once ask for the largest answer a utility gives (4.7 MB,
// base64 decoding a 1 MiB body) and read it slowly: each reads the status
// line and headers, holds the rest unread for several seconds behind a 4
// KiB receive buffer, then reads it all. A call refused 503 busy is sent
// again at once (without waiting for Retry-After, to keep the load at its
// worst) until the holding ends. The readers are spread over 10 accounts
// and 10 addresses, so the shares of one client or account do not spare
// the whole budget. The process's peak resident set (VmHWM) must stay
// under 1 GiB. It runs the binary named by SECUTIL_RSS_BINARY:
//
//	go build -o /tmp/secutil . && SECUTIL_RSS_BINARY=/tmp/secutil go test -count=1 -run '^TestPeakRSSOfSlowReaders$' -v ./server
func TestPeakRSSOfSlowReaders(t *testing.T) {
	t.Parallel()
	bin := os.Getenv("SECUTIL_RSS_BINARY")
	if bin == "" {
		t.Skip("a load run on the built binary: SECUTIL_RSS_BINARY=/path/to/secutil go test -run TestPeakRSSOfSlowReaders -v ./server")
	}
	const readers, accounts, hold = 500, 10, 12 * time.Second
	dir := t.TempDir()
	db := filepath.Join(dir, "rss.db")
	if err := storetest.WriteMigrated(db); err != nil { // as serve's first start makes it
		t.Fatal(err)
	}
	for i := range accounts {
		out, err := exec.Command(bin, "user", "add", "-db", db, "-email", fmt.Sprintf("reader%d@example.com", i), "-password", testPassword, "-plan", "pro").CombinedOutput()
		if err != nil {
			t.Fatalf("user add: %v\n%s", err, out)
		}
	}
	cmd := exec.Command(bin, "serve", "-addr", "127.0.0.1:0", "-db", db)
	cmd.Dir = dir
	stdout := &safeBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := waitForListen(t, stdout)
	keys := make([]string, accounts)
	for i := range keys {
		raw, _ := json.Marshal(map[string]string{"email": fmt.Sprintf("reader%d@example.com", i), "password": testPassword})
		res, err := http.Post(base+"/api/get_api_key", "application/json", bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]string
		json.NewDecoder(res.Body).Decode(&m)
		res.Body.Close()
		if keys[i] = m["api_key"]; keys[i] == "" {
			t.Fatalf("get_api_key: %d %v", res.StatusCode, m)
		}
	}
	body := largestAnswerBody()
	idle := procstatus.PeakRSS(t, cmd.Process.Pid)
	start := time.Now()
	release := start.Add(hold)
	var answered, refused, lost atomic.Int64
	var answerBytes atomic.Int64
	var wg sync.WaitGroup
	for i := range readers {
		wg.Go(func() {
			ip := "127.0.0." + strconv.Itoa(20+i%accounts)
			head := "POST /api/v1/base64 HTTP/1.1\r\nHost: " + strings.TrimPrefix(base, "http://") + "\r\nContent-Type: application/json\r\n" +
				"X-API-Key: " + keys[i%accounts] + "\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n"
			for time.Now().Before(release) {
				dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Control: smallReceiveBuffer}
				conn, err := dialer.Dial("tcp", strings.TrimPrefix(base, "http://"))
				if err != nil {
					lost.Add(1)
					time.Sleep(100 * time.Millisecond)
					continue
				}
				conn.SetDeadline(time.Now().Add(2 * time.Minute))
				rd := bufio.NewReaderSize(conn, 4096)
				var res *http.Response
				if _, err = conn.Write(append([]byte(head), body...)); err == nil {
					res, err = http.ReadResponse(rd, nil)
				}
				if err != nil {
					lost.Add(1)
					conn.Close()
					continue
				}
				if res.StatusCode == http.StatusServiceUnavailable {
					refused.Add(1)
					conn.Close()
					continue
				}
				time.Sleep(time.Until(release))
				n, err := io.Copy(io.Discard, res.Body)
				conn.Close()
				if err != nil || res.StatusCode != http.StatusOK {
					t.Errorf("an answer: %d, %d bytes, %v", res.StatusCode, n, err)
					return
				}
				answered.Add(1)
				answerBytes.Store(n)
				return
			}
		})
	}
	wg.Wait()
	peak := procstatus.PeakRSS(t, cmd.Process.Pid)
	t.Logf("%d clients, %d answers of %d bytes read slowly, %d calls refused 503 busy and sent again, %d connections lost, in %v: peak RSS %d MiB (%d MiB before)",
		readers, answered.Load(), answerBytes.Load(), refused.Load(), lost.Load(), time.Since(start).Round(time.Millisecond), peak>>20, idle>>20)
	if peak >= 1<<30 {
		t.Fatalf("peak RSS %d MiB, want under 1 GiB", peak>>20)
	}
}

var listenLine = regexp.MustCompile(`listening on (https?://\S+)`)

// waitForListen is the URL of the server whose start message out holds,
// once its /health answers.
func waitForListen(t *testing.T, out fmt.Stringer) string {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listenLine.FindStringSubmatch(out.String()); m != nil {
			if res, err := http.Get(m[1] + "/health"); err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return m[1]
				}
			}
		}
	}
	t.Fatalf("the server did not come up:\n%s", out)
	return ""
}
