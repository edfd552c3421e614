package webhooksig_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"secutil/tools/webhooksig"
)

var (
	secret = []byte("whsec_test_0123456789abcdef")
	body   = []byte(`{"id":"evt_1","type":"subscription.canceled","data":{"email":"a@example.com"}}`)
	now    = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
)

func TestSignKnownVector(t *testing.T) {
	// Computed independently with:
	// printf '%s' '1700000000.hello' | openssl dgst -sha256 -hmac key -hex
	got := hex.EncodeToString(webhooksig.Sign([]byte("key"), 1700000000, []byte("hello")))
	if want := "4d583a269f4f276a3fa80ff31b5a01879a848096983222a17893d198418939aa"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestVerify(t *testing.T) {
	ts := now.Unix()
	sig := hex.EncodeToString(webhooksig.Sign(secret, ts, body))
	other := hex.EncodeToString(webhooksig.Sign([]byte("another secret"), ts, body))
	tests := []struct {
		name   string
		header string
		body   []byte
		now    time.Time
		want   error
	}{
		{"valid", webhooksig.Format(ts, body, secret), body, now, nil},
		{"valid with spaces", "t=" + itoa(ts) + ", v1=" + sig, body, now, nil},
		{"wrong secret", webhooksig.Format(ts, body, []byte("wrong")), body, now, webhooksig.ErrMismatch},
		{"tampered body", webhooksig.Format(ts, body, secret), append(append([]byte(nil), body...), ' '), now, webhooksig.ErrMismatch},
		{"tampered timestamp", "t=" + itoa(ts+1) + ",v1=" + sig, body, now, webhooksig.ErrMismatch},
		{"rotation: second of two valid", "t=" + itoa(ts) + ",v1=" + other + ",v1=" + sig, body, now, nil},
		{"rotation: first of two valid", "t=" + itoa(ts) + ",v1=" + sig + ",v1=" + other, body, now, nil},
		{"unknown scheme ignored", "t=" + itoa(ts) + ",v0=abc,v1=" + sig, body, now, nil},
		{"just inside past tolerance", webhooksig.Format(ts, body, secret), body, now.Add(webhooksig.Tolerance), nil},
		{"stale", webhooksig.Format(ts, body, secret), body, now.Add(webhooksig.Tolerance + time.Second), webhooksig.ErrStale},
		{"future", webhooksig.Format(ts, body, secret), body, now.Add(-webhooksig.Tolerance - time.Second), webhooksig.ErrStale},
		{"empty", "", body, now, webhooksig.ErrMalformed},
		{"no v1", "t=" + itoa(ts), body, now, webhooksig.ErrMalformed},
		{"no t", "v1=" + sig, body, now, webhooksig.ErrMalformed},
		{"two t", "t=" + itoa(ts) + ",t=" + itoa(ts) + ",v1=" + sig, body, now, webhooksig.ErrMalformed},
		{"t not a number", "t=abc,v1=" + sig, body, now, webhooksig.ErrMalformed},
		{"negative t", "t=-5,v1=" + sig, body, now, webhooksig.ErrMalformed},
		{"v1 not hex", "t=" + itoa(ts) + ",v1=zz" + sig[2:], body, now, webhooksig.ErrMalformed},
		{"v1 too short", "t=" + itoa(ts) + ",v1=" + sig[:62], body, now, webhooksig.ErrMalformed},
		{"part without =", "t=" + itoa(ts) + ",v1", body, now, webhooksig.ErrMalformed},
		{"too many signatures", "t=" + itoa(ts) + strings.Repeat(",v1="+other, webhooksig.MaxSignatures) + ",v1=" + sig, body, now, webhooksig.ErrMalformed},
		{"too long", "t=" + itoa(ts) + ",v1=" + sig + ",x=" + strings.Repeat("a", webhooksig.MaxHeaderBytes), body, now, webhooksig.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := webhooksig.Verify(tt.header, secret, tt.body, tt.now); !errors.Is(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFormatThenParse(t *testing.T) {
	h, err := webhooksig.ParseHeader(webhooksig.Format(42, body, secret, []byte("b")))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.Timestamp, int64(42); got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got, want := len(h.Signatures), 2; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func FuzzParseHeader(f *testing.F) {
	f.Add("t=1700000000,v1=" + strings.Repeat("ab", sha256.Size))
	f.Add("t=1,v1=00,v1=11")
	f.Add("")
	f.Add(",,,=")
	f.Add("t=99999999999999999999,v1=")
	f.Fuzz(func(t *testing.T, value string) {
		h, err := webhooksig.ParseHeader(value)
		if err != nil {
			if !errors.Is(err, webhooksig.ErrMalformed) {
				t.Fatalf("error %v is not ErrMalformed", err)
			}
			return
		}
		if h.Timestamp <= 0 || len(h.Signatures) == 0 || len(h.Signatures) > webhooksig.MaxSignatures {
			t.Fatalf("accepted %q as %+v", value, h)
		}
		for _, s := range h.Signatures {
			if len(s) != sha256.Size {
				t.Fatalf("accepted a %d-byte signature", len(s))
			}
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	b.ReportAllocs()
	header := webhooksig.Format(now.Unix(), body, []byte("old"), secret)
	for b.Loop() {
		if err := webhooksig.Verify(header, secret, body, now); err != nil {
			b.Fatal(err)
		}
	}
}
