// Package webhooksig signs and verifies the Secutil-Signature header of
// billing webhooks:
//
//	Secutil-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>
//
// Several v1 values may be given (one per secret during a rotation); the
// header is valid when any of them matches. The timestamp binds the
// signature to a moment, so a captured request cannot be replayed after
// Tolerance has passed.
package webhooksig

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// HeaderName is the HTTP header that carries the signature.
const HeaderName = "Secutil-Signature"

// Tolerance is how far a signature's timestamp may be from now, either way.
const Tolerance = 5 * time.Minute

// Limits on a header, so parsing a hostile one costs little.
const (
	MaxHeaderBytes = 2048 // longer headers are refused before parsing
	MaxSignatures  = 8    // v1 values beyond this are refused
)

var (
	// ErrMalformed: the header is missing, too long, or not t=..,v1=...
	ErrMalformed = errors.New("malformed Secutil-Signature header: want t=<unix seconds>,v1=<hex HMAC-SHA256>")
	// ErrMismatch: no v1 value is the HMAC of this body with this secret.
	ErrMismatch = errors.New("no signature in the Secutil-Signature header matches the body")
	// ErrStale: the signature is valid but its timestamp is outside Tolerance.
	ErrStale = errors.New("the Secutil-Signature timestamp is more than 5 minutes from the server's clock; check the sender's clock")
)

// Header is a parsed Secutil-Signature header.
type Header struct {
	Timestamp  int64    // Unix seconds
	Signatures [][]byte // decoded v1 values, each sha256.Size bytes
}

// ParseHeader parses a Secutil-Signature value. Unknown keys (e.g. a future
// v2) are ignored; a header without t or without any v1 is ErrMalformed.
func ParseHeader(value string) (Header, error) {
	var h Header
	if len(value) > MaxHeaderBytes {
		return h, ErrMalformed
	}
	haveTime := false
	for _, part := range strings.Split(value, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Header{}, ErrMalformed
		}
		switch key {
		case "t":
			t, err := strconv.ParseInt(val, 10, 64)
			if err != nil || t <= 0 || haveTime {
				return Header{}, ErrMalformed
			}
			h.Timestamp, haveTime = t, true
		case "v1":
			sig, err := hex.DecodeString(val)
			if err != nil || len(sig) != sha256.Size || len(h.Signatures) == MaxSignatures {
				return Header{}, ErrMalformed
			}
			h.Signatures = append(h.Signatures, sig)
		}
	}
	if !haveTime || len(h.Signatures) == 0 {
		return Header{}, ErrMalformed
	}
	return h, nil
}

// Sign returns the HMAC-SHA256 of t + "." + body under secret.
func Sign(secret []byte, t int64, body []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strconv.FormatInt(t, 10)))
	mac.Write([]byte("."))
	mac.Write(body)
	return mac.Sum(nil)
}

// Format returns a header value signing body at time t with each secret.
func Format(t int64, body []byte, secrets ...[]byte) string {
	var b strings.Builder
	b.WriteString("t=" + strconv.FormatInt(t, 10))
	for _, secret := range secrets {
		b.WriteString(",v1=" + hex.EncodeToString(Sign(secret, t, body)))
	}
	return b.String()
}

// Verify checks a header value against body and secret at time now. The
// signature is checked before the timestamp, so only a holder of the
// secret learns that a request was merely stale.
func Verify(value string, secret, body []byte, now time.Time) error {
	h, err := ParseHeader(value)
	if err != nil {
		return err
	}
	want := Sign(secret, h.Timestamp, body)
	matched := false
	for _, sig := range h.Signatures {
		// Every candidate is compared, in constant time, so timing reveals
		// neither which one matched nor how much of it.
		if hmac.Equal(sig, want) {
			matched = true
		}
	}
	if !matched {
		return ErrMismatch
	}
	if skew := now.Sub(time.Unix(h.Timestamp, 0)); skew > Tolerance || skew < -Tolerance {
		return ErrStale
	}
	return nil
}
