// Package jwt decodes JSON Web Tokens for inspection (Inspect),
// showing what a token claims and warning about what should not be
// trusted, and verifies them against a key (Verify): an HMAC secret, a PEM
// public key, a JWK or a JWKS document, with the reason a token is not
// valid.
package jwt

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"secutil/tools/jsonfmt"
)

// MaxTokenBytes bounds the input.
const MaxTokenBytes = 64 << 10

// ErrInvalid is wrapped by every error about a token that cannot be decoded.
var ErrInvalid = errors.New("invalid JWT")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Decoded is a token taken apart for inspection.
type Decoded struct {
	// Header and Payload are the JSON objects as the token holds them, in
	// their original order and spacing (valid JSON, within jsonfmt's
	// bounds).
	Header, Payload json.RawMessage
	// Signature is the third part as the token writes it, in base64url.
	Signature string
	// Answer is the pretty JSON {"header": {...}, "payload": {...},
	// "signature": "..."}, the claims in their original order.
	Answer string
	// Warnings say, one sentence each, why the token should not be trusted
	// at now: unsigned (alg "none"), expired, not valid yet, issued in the
	// future. The dates are in Expires, NotBefore and IssuedAt, not in the
	// sentences, so a page shows each date once.
	Warnings []string
	// Expires, NotBefore and IssuedAt are the exp, nbf and iat claims when
	// they are NumericDates, in UTC; nil otherwise.
	Expires, NotBefore, IssuedAt *time.Time
}

// Inspect takes a token apart (a "Bearer " prefix is dropped) and warns
// about what should not be trusted at now. It never verifies the
// signature: Verify does.
func Inspect(token string, now time.Time) (Decoded, error) {
	t, err := split(token)
	if err != nil {
		return Decoded{}, err
	}
	var out bytes.Buffer
	out.WriteString("{\n  \"header\": ")
	out.Write(t.headerOut)
	out.WriteString(",\n  \"payload\": ")
	out.Write(t.payloadOut)
	sig, _ := json.Marshal(t.signatureText)
	out.WriteString(",\n  \"signature\": ")
	out.Write(sig)
	out.WriteString("\n}")

	d := Decoded{Header: t.header, Payload: t.payload, Signature: t.signatureText, Answer: out.String()}
	var claims timeClaims
	json.Unmarshal(t.payload, &claims)
	d.Expires, _ = numericDate(claims.Exp)
	d.NotBefore, _ = numericDate(claims.Nbf)
	d.IssuedAt, _ = numericDate(claims.Iat)
	if strings.EqualFold(t.alg(), "none") {
		d.Warnings = append(d.Warnings, `alg is "none": the token is unsigned and anyone could have written it`)
	}
	if d.Expires != nil && now.After(*d.Expires) {
		d.Warnings = append(d.Warnings, "token has expired (exp is in the past)")
	}
	if d.NotBefore != nil && now.Before(*d.NotBefore) {
		d.Warnings = append(d.Warnings, "token is not valid yet (nbf is in the future)")
	}
	if d.IssuedAt != nil && now.Before(*d.IssuedAt) {
		d.Warnings = append(d.Warnings, "token was issued in the future (iat is after now)")
	}
	return d, nil
}

// parts is a token split and decoded, its JSON checked and indented within
// jsonfmt's bounds.
type parts struct {
	header, payload       json.RawMessage
	headerOut, payloadOut json.RawMessage
	signature             []byte
	signatureText         string
	// signingInput is what the signature covers: the first two parts as
	// the token writes them.
	signingInput string
}

func split(token string) (parts, error) {
	token = strings.TrimSpace(token)
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = strings.TrimSpace(token[7:])
	}
	if len(token) > MaxTokenBytes {
		return parts{}, invalid("token is longer than %d bytes", MaxTokenBytes)
	}
	segments := strings.Split(token, ".")
	switch len(segments) {
	case 3:
	case 5:
		return parts{}, invalid("this is an encrypted JWT (JWE, five parts); it cannot be decoded without the key")
	default:
		return parts{}, invalid("a JWT has three base64url parts separated by dots; this has %d", len(segments))
	}
	// The answer is bounded like jsonfmt.Format's: nesting, and output at
	// most four times the token or 1 MiB.
	limit := jsonfmt.OutputLimit(len(token))
	var t parts
	var err error
	if t.header, t.headerOut, err = decodeObject("header", segments[0], limit); err != nil {
		return parts{}, err
	}
	if t.payload, t.payloadOut, err = decodeObject("payload", segments[1], limit-len(t.headerOut)); err != nil {
		return parts{}, err
	}
	if t.signature, err = decodeSegment(segments[2]); err != nil {
		return parts{}, invalid("signature is not base64url")
	}
	t.signatureText = segments[2]
	t.signingInput = segments[0] + "." + segments[1]
	return t, nil
}

// alg is the header's alg, or "" when it has none or not a string.
func (t parts) alg() string {
	var h struct {
		Alg any `json:"alg"`
	}
	json.Unmarshal(t.header, &h)
	alg, _ := h.Alg.(string)
	return alg
}

func decodeSegment(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// decodeObject decodes one base64url part that must hold a JSON object,
// and indents it for the answer in at most limit bytes. A part past the
// bounds is a *jsonfmt.LimitError.
func decodeObject(name, part string, limit int) (raw, indented json.RawMessage, err error) {
	raw, err = decodeSegment(part)
	if err != nil {
		return nil, nil, invalid("the %s is not base64url", name)
	}
	indented, err = jsonfmt.Indent(raw, "  ", limit)
	var tooBig *jsonfmt.LimitError
	if errors.As(err, &tooBig) {
		return nil, nil, fmt.Errorf("the %s: %w", name, err)
	}
	// Valid JSON that starts with a brace is an object.
	if err != nil || indented[0] != '{' {
		return nil, nil, invalid("the %s is not a JSON object", name)
	}
	return raw, indented, nil
}

// timeClaims are the registered claims about time (RFC 7519 §4.1.4–6).
type timeClaims struct {
	Exp any `json:"exp"`
	Nbf any `json:"nbf"`
	Iat any `json:"iat"`
}

// numericDate reads an RFC 7519 NumericDate (seconds since the epoch):
// nil and true for an absent claim, nil and false for one that is not a
// number of seconds within ±1e12.
func numericDate(v any) (*time.Time, bool) {
	if v == nil {
		return nil, true
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.Abs(f) > 1e12 {
		return nil, false
	}
	t := time.Unix(int64(f), 0).UTC()
	return &t, true
}
