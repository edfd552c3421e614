// Package jwt decodes JSON Web Tokens for inspection. It never verifies a
// signature: it shows what a token claims, and warns about what should not
// be trusted.
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

// Decode returns the token's parts as pretty JSON
// {"header": {...}, "payload": {...}, "signature": "..."} with the claims in
// their original order, and a warning (empty when none) for an unsigned
// token (alg "none"), an expired one, or one not yet valid at now.
func Decode(token string, now time.Time) (answer, warning string, err error) {
	token = strings.TrimSpace(token)
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = strings.TrimSpace(token[7:])
	}
	if len(token) > MaxTokenBytes {
		return "", "", invalid("token is longer than %d bytes", MaxTokenBytes)
	}
	parts := strings.Split(token, ".")
	switch len(parts) {
	case 3:
	case 5:
		return "", "", invalid("this is an encrypted JWT (JWE, five parts); it cannot be decoded without the key")
	default:
		return "", "", invalid("a JWT has three base64url parts separated by dots; this has %d", len(parts))
	}
	// The answer is bounded like jsonfmt.Format's: nesting, and output at
	// most four times the token or 1 MiB.
	limit := jsonfmt.OutputLimit(len(token))
	header, headerOut, err := decodeObject("header", parts[0], limit)
	if err != nil {
		return "", "", err
	}
	payload, payloadOut, err := decodeObject("payload", parts[1], limit-len(headerOut))
	if err != nil {
		return "", "", err
	}
	if _, err := decodeSegment(parts[2]); err != nil {
		return "", "", invalid("signature is not base64url")
	}

	var out bytes.Buffer
	out.WriteString("{\n  \"header\": ")
	out.Write(headerOut)
	out.WriteString(",\n  \"payload\": ")
	out.Write(payloadOut)
	sig, _ := json.Marshal(parts[2])
	out.WriteString(",\n  \"signature\": ")
	out.Write(sig)
	out.WriteString("\n}")
	return out.String(), warnings(header, payload, now), nil
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

func warnings(header, payload json.RawMessage, now time.Time) string {
	var h struct {
		Alg any `json:"alg"`
	}
	var p struct {
		Exp any `json:"exp"`
		Nbf any `json:"nbf"`
	}
	json.Unmarshal(header, &h)
	json.Unmarshal(payload, &p)
	var out []string
	if alg, _ := h.Alg.(string); strings.EqualFold(alg, "none") {
		out = append(out, `alg is "none": the token is unsigned and anyone could have written it`)
	}
	if exp, ok := numericDate(p.Exp); ok && now.After(exp) {
		out = append(out, "token expired at "+exp.Format(time.RFC3339))
	}
	if nbf, ok := numericDate(p.Nbf); ok && now.Before(nbf) {
		out = append(out, "token is not valid before "+nbf.Format(time.RFC3339))
	}
	return strings.Join(out, "; ")
}

// numericDate reads an RFC 7519 NumericDate (seconds since the epoch).
func numericDate(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.Abs(f) > 1e12 {
		return time.Time{}, false
	}
	return time.Unix(int64(f), 0).UTC(), true
}
