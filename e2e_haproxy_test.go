package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store"
	"secutil/store/pgtest"
)

// TestRestartBehindHAProxyLosesNoCall runs two instances on one
// PostgreSQL database behind HAProxy, configured as
// docs/SEVERAL-INSTANCES.md shows but with its retries off, sends metered
// calls through it without pause, and restarts one instance with SIGTERM
// as a service manager would. The drain takes the instance out of HAProxy
// before it stops: no call fails, every answered call is counted once, and
// the new instance serves again. With both instances gone, HAProxy's own
// 503 is the documented one, with secutil's Retry-After. It runs when
// SECUTIL_HAPROXY_TEST=1, as CI sets it in a step of its own: ten seconds
// of load that go test ./... would otherwise spend on every run.
func TestRestartBehindHAProxyLosesNoCall(t *testing.T) {
	t.Parallel()
	if os.Getenv("SECUTIL_HAPROXY_TEST") != "1" {
		t.Skip("runs two servers and HAProxy under load for ten seconds: set SECUTIL_HAPROXY_TEST=1")
	}
	haproxy := lookPathOrSkip(t, "haproxy")
	db := pgtest.URL(t)
	bin := secutilBinary(t)
	dir := t.TempDir()
	addrs := freeLoopbackAddrs(t, 3) // the two instances, HAProxy's TLS front

	const email = "restart@example.com"
	if out, err := runCommand(bin, "user", "add", "-db", db, email, "-password", cmdtest.Password, "-plan", "pro"); err != nil {
		t.Fatalf("user add: %v\n%s", err, out)
	}
	// Each instance trusts the balancer and answers for the public name the
	// health check sends (and for 127.0.0.1, which the tests' wait uses).
	serveFlags := []string{"-trusted-proxies", "127.0.0.1", "-allowed-hosts", "secutil.example.com,127.0.0.1", "-hash-db", cmdtest.SharedHashDB(t)}
	aCmd, a, _, _ := startBinary(t, bin, db, append([]string{"-addr", addrs[0]}, serveFlags...)...)
	b, _, _, bLogs := startBinary(t, bin, db, append([]string{"-addr", addrs[1]}, serveFlags...)...)
	key := getKey(t, a, email, "default")
	// HAProxy starts once both instances serve, so that no health check
	// finds one not yet listening: a server starts with the fewest passing
	// checks that keep it in rotation, one failure takes it out, and its
	// return takes two passes (rise 2). Started first, the balancer once
	// dropped both just as the load began: calls answered 503 <NOSRV> for
	// a tenth of a second, and the test failed.
	front := startHAProxy(t, haproxy, dir, addrs[0], addrs[1], addrs[2])
	front.waitUntilServing(t)

	var load meteredLoad
	load.start(t, 8, func(path string, body []byte) (*http.Response, error) {
		return front.do(http.MethodPost, path, key, body)
	})
	waitForServedCall(t, "the second instance", bLogs) // HAProxy has it in rotation

	cmdtest.MustStep(t, "SIGTERM drains the instance, then it stops", func(t *testing.T) {
		stopped := time.Now()
		t.Logf("SIGTERM at %s", stopped.Format("15:04:05.000"))
		if err := b.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := b.Wait(); err != nil {
			t.Fatalf("the instance's exit after SIGTERM: %v\n%s", err, bLogs)
		}
		if !strings.Contains(bLogs.String(), "draining") {
			t.Fatalf("no drain in the log:\n%s", bLogs)
		}
		t.Logf("stopped %v after SIGTERM, at %s; %d calls answered so far", time.Since(stopped).Round(time.Millisecond), time.Now().Format("15:04:05.000"), load.ok.Load())
	})
	// Started with the test's t, not the step's, whose end would stop it.
	newB, _, _, newBLogs := startBinary(t, bin, db, append([]string{"-addr", addrs[1]}, serveFlags...)...)
	cmdtest.MustStep(t, "the new instance serves again", func(t *testing.T) {
		waitForServedCall(t, "the new instance", newBLogs)
		load.waitForAnswers(t, load.ok.Load()+500)
	})
	load.stop()

	t.Run("no call failed, and every answered call is counted", func(t *testing.T) {
		load.checkCounted(t, a, key, db)
		t.Logf("%d calls answered through HAProxy across the restart, none failed, all counted", load.ok.Load())
	})

	t.Run("with no instance up, HAProxy answers as secutil does", func(t *testing.T) {
		for _, cmd := range []*exec.Cmd{aCmd, newB} {
			cmd.Process.Kill()
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := front.do(http.MethodGet, "/health", "", nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var answer struct{ Error, Code string }
			if res.StatusCode == http.StatusServiceUnavailable && json.Unmarshal(body, &answer) == nil && answer.Code == "busy" {
				if got, want := res.Header.Get("Retry-After"), strconv.Itoa(int(store.RetryAfter.Seconds())); got != want || answer.Error == "" ||
					res.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("HAProxy's 503: Retry-After %q (want %q), Content-Type %q, body %s", got, want, res.Header.Get("Content-Type"), body)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("30 s after the instances died HAProxy answers %d %s", res.StatusCode, body)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}

// haproxyFront is an HAProxy process in front of two instances, and the
// client that reaches it over TLS as secutil.example.com.
type haproxyFront struct {
	url    string
	client *http.Client
}

// startHAProxy runs HAProxy with the configuration of
// docs/SEVERAL-INSTANCES.md, its retries off, listening on front (TLS,
// with a certificate of its own) for the instances at addrA and addrB,
// until the test ends.
func startHAProxy(t *testing.T, haproxy, dir, addrA, addrB, front string) *haproxyFront {
	t.Helper()
	raw, err := os.ReadFile("docs/SEVERAL-INSTANCES.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	certPEM, keyPEM := selfSignedCert(t)
	pemFile, errorPath := filepath.Join(dir, "haproxy.pem"), filepath.Join(dir, "secutil-503.http")
	writeBalancerFile(t, pemFile, certPEM+keyPEM)
	writeBalancerFile(t, errorPath, fencedBlock(t, doc, "http"))
	cfg := fencedBlock(t, doc, "haproxy")
	for _, r := range [][2]string{
		{"defaults\n", "defaults\n    retries 0\n"}, // a failed call must not be hidden by a retry
		{"bind :443 ssl crt /etc/haproxy/secutil.pem\n", "bind " + front + " ssl crt " + pemFile + "\n"},
		{"    bind :80\n", ""},
		{"log stdout format raw local0", "log stderr format raw local0"},
		{haproxyErrorFile, errorPath},
		{"10.0.0.11:8080", addrA},
		{"10.0.0.12:8080", addrB},
	} {
		cfg = replaceOrFail(t, cfg, r[0], r[1])
	}
	cfgFile := filepath.Join(dir, "haproxy.cfg")
	writeBalancerFile(t, cfgFile, cfg)
	cmd := exec.Command(haproxy, "-db", "-f", cfgFile)
	logs, err := os.Create(filepath.Join(dir, "haproxy.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logs.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logs.Name())
			t.Logf("HAProxy's log, but for the calls answered 200:\n%s", withoutOK(string(out)))
		}
	})
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM([]byte(certPEM))
	transport := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: roots, ServerName: "secutil.example.com"},
		MaxIdleConnsPerHost: 64,
	}
	t.Cleanup(transport.CloseIdleConnections)
	return &haproxyFront{url: "https://" + front, client: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
}

// do sends a request through HAProxy for secutil.example.com.
func (f *haproxyFront) do(method, path, key string, body []byte) (*http.Response, error) {
	req, err := http.NewRequest(method, f.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Host = "secutil.example.com"
	if key != "" {
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Content-Type", "application/json")
	}
	return f.client.Do(req)
}

// waitUntilServing waits until HAProxy passes /health through to an
// instance.
func (f *haproxyFront) waitUntilServing(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := f.do(http.MethodGet, "/health", "", nil)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy did not pass /health to an instance in 30 s: %v %v", res, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitForServedCall waits until an instance's log shows a call of the
// load answered: HAProxy has the instance in rotation.
func waitForServedCall(t *testing.T, instance string, logs fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(logs.String(), "path=/api/v1/base64 status=200") {
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy sent %s no call in 30 s; its log:\n%s", instance, logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// withoutOK is an HAProxy log without the lines of requests answered 200.
func withoutOK(log string) string {
	var b strings.Builder
	for line := range strings.Lines(log) {
		if !strings.Contains(line, " 200 ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
