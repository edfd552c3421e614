package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/store"
)

// TestLoadBalancerSnippets checks the HAProxy and nginx examples of
// docs/SEVERAL-INSTANCES.md with the programs themselves (haproxy -c,
// nginx -t), each skipped when its program is not installed; the health
// check, the forwarding headers and HAProxy's own 503 the text promises
// must be in them, and the health check must take an instance out within
// serve's -drain.
func TestLoadBalancerSnippets(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("docs/SEVERAL-INSTANCES.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	haproxyCfg, nginxCfg, errorFile := fencedBlock(t, doc, "haproxy"), fencedBlock(t, doc, "nginx"), fencedBlock(t, doc, "http")
	for _, c := range []struct{ cfg, want string }{
		{haproxyCfg, "option httpchk GET /health"},
		{haproxyCfg, "http-check expect status 200"},
		{haproxyCfg, "option forwardfor"},
		{haproxyCfg, "X-Forwarded-Proto"},
		{haproxyCfg, "errorfile 503 " + haproxyErrorFile},
		{errorFile, "HTTP/1.1 503 Service Unavailable\n"},
		{errorFile, "Content-Type: application/json\n"},
		{errorFile, "Retry-After: " + strconv.Itoa(int(store.RetryAfter.Seconds())) + "\n"},
		{errorFile, `"code":"busy"`},
		{nginxCfg, "X-Forwarded-For $proxy_add_x_forwarded_for"},
		{nginxCfg, "X-Forwarded-Proto $scheme"},
		{doc, "-trusted-proxies 10.0.0.2"},
	} {
		if !strings.Contains(c.cfg, c.want) {
			t.Errorf("the example lacks %q", c.want)
		}
	}
	if out := haproxyTakesOutWithin(t, haproxyCfg); out >= serveDrain(t) {
		t.Errorf("the HAProxy example takes a draining instance out after up to %v, not within serve's -drain of %v", out, serveDrain(t))
	}
	dir := t.TempDir()
	certPEM, keyPEM := selfSignedCert(t)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeBalancerFile(t, certFile, certPEM)
	writeBalancerFile(t, keyFile, keyPEM)

	t.Run("haproxy -c", func(t *testing.T) {
		t.Parallel()
		bin := lookPathOrSkip(t, "haproxy")
		pemFile := filepath.Join(dir, "haproxy.pem")
		writeBalancerFile(t, pemFile, certPEM+keyPEM)
		errorPath := filepath.Join(dir, "secutil-503.http")
		writeBalancerFile(t, errorPath, errorFile)
		cfg := filepath.Join(dir, "haproxy.cfg")
		writeBalancerFile(t, cfg, replaceOrFail(t, replaceOrFail(t, haproxyCfg, "/etc/haproxy/secutil.pem", pemFile), haproxyErrorFile, errorPath))
		if out, err := exec.Command(bin, "-c", "-f", cfg).CombinedOutput(); err != nil {
			t.Fatalf("haproxy -c: %v\n%s", err, out)
		}
	})
	t.Run("nginx -t", func(t *testing.T) {
		t.Parallel()
		bin := lookPathOrSkip(t, "nginx")
		prefix := filepath.Join(dir, "nginx")
		if err := os.MkdirAll(filepath.Join(prefix, "logs"), 0o755); err != nil {
			t.Fatal(err)
		}
		site := replaceOrFail(t, nginxCfg, "/etc/ssl/certs/secutil.example.com.pem", certFile)
		site = replaceOrFail(t, site, "/etc/ssl/private/secutil.example.com.key", keyFile)
		// The snippet is a conf.d file: nginx.conf's http block includes it.
		main := "pid " + filepath.Join(prefix, "nginx.pid") + ";\nerror_log " + filepath.Join(prefix, "logs", "error.log") + ";\n" +
			"events {}\nhttp {\n" + site + "\n}\n"
		cfg := filepath.Join(prefix, "nginx.conf")
		writeBalancerFile(t, cfg, main)
		if out, err := exec.Command(bin, "-t", "-p", prefix, "-e", filepath.Join(prefix, "logs", "error.log"), "-c", cfg).CombinedOutput(); err != nil {
			t.Fatalf("nginx -t: %v\n%s", err, out)
		}
	})
}

// haproxyErrorFile is where the HAProxy example keeps its own 503 answer.
const haproxyErrorFile = "/etc/haproxy/errors/secutil-503.http"

var haproxyCheckTiming = regexp.MustCompile(`(?m)^\s*default-server check inter (\d+)s fall (\d+) rise \d+$`)

// haproxyTakesOutWithin is the longest an HAProxy configuration's health
// checks take to mark a failing server down: fall checks, inter apart,
// after the last that passed.
func haproxyTakesOutWithin(t *testing.T, cfg string) time.Duration {
	t.Helper()
	m := haproxyCheckTiming.FindStringSubmatch(cfg)
	if m == nil {
		t.Fatalf("the HAProxy example has no %q line", "default-server check inter Ns fall N rise N")
	}
	inter, _ := strconv.Atoi(m[1])
	fall, _ := strconv.Atoi(m[2])
	return time.Duration(inter*fall) * time.Second
}

// serveDrain is serve's -drain default, as serve -h gives it.
func serveDrain(t *testing.T) time.Duration {
	t.Helper()
	for _, f := range serveFlags(t) {
		if f.name == "drain" {
			d, err := time.ParseDuration(f.def)
			if err != nil {
				t.Fatalf("serve's -drain default %q: %v", f.def, err)
			}
			return d
		}
	}
	t.Fatal("serve has no -drain")
	return 0
}

// fencedBlock is the one code block of doc fenced as ```lang.
func fencedBlock(t *testing.T, doc, lang string) string {
	t.Helper()
	parts := strings.Split(doc, "```"+lang+"\n")
	if len(parts) != 2 {
		t.Fatalf("want one ```%s block, found %d", lang, len(parts)-1)
	}
	block, _, found := strings.Cut(parts[1], "```")
	if !found {
		t.Fatalf("the ```%s block is not closed", lang)
	}
	return block
}

func lookPathOrSkip(t *testing.T, program string) string {
	t.Helper()
	bin, err := exec.LookPath(program)
	if err != nil {
		t.Skipf("%s is not installed (Debian package %s)", program, program)
	}
	return bin
}

func replaceOrFail(t *testing.T, s, old, replacement string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the example no longer names %s", old)
	}
	return strings.ReplaceAll(s, old, replacement)
}

func writeBalancerFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// selfSignedCert is a certificate for secutil.example.com and its key, in
// PEM, for the balancers' configuration checks.
func selfSignedCert(t *testing.T) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "secutil.example.com"},
		DNSNames:     []string{"secutil.example.com"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
}
