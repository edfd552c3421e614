package jwt_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"secutil/tools/jsonfmt"
	"secutil/tools/jwt"
)

// The example token of RFC 7519 §3.1 (HS256), whose payload has
// "exp":1300819380 (2011-03-22T18:43:00Z).
const rfcToken = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9." +
	"eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ." +
	"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

func TestInspectRFCExample(t *testing.T) {
	d, err := jwt.Inspect(rfcToken, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Header    map[string]any `json:"header"`
		Payload   map[string]any `json:"payload"`
		Signature string         `json:"signature"`
	}
	if err := json.Unmarshal([]byte(d.Answer), &got); err != nil {
		t.Fatalf("answer is not JSON: %v\n%s", err, d.Answer)
	}
	if got.Header["alg"] != "HS256" || got.Payload["iss"] != "joe" || got.Signature != "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" {
		t.Fatalf("decoded %+v", got)
	}
	// Claims keep their order: iss before exp, as in the token.
	if strings.Index(d.Answer, `"iss"`) > strings.Index(d.Answer, `"exp"`) {
		t.Fatalf("claim order changed:\n%s", d.Answer)
	}
	// The expiry is said once: the date in Expires, the fact in the warning.
	if len(d.Warnings) != 1 || d.Warnings[0] != "token has expired (exp is in the past)" {
		t.Fatalf("warnings %q", d.Warnings)
	}
	if d.Expires == nil || !d.Expires.Equal(time.Date(2011, 3, 22, 18, 43, 0, 0, time.UTC)) || d.NotBefore != nil || d.IssuedAt != nil {
		t.Fatalf("Inspect: %+v", d)
	}
	if !json.Valid(d.Header) || !json.Valid(d.Payload) || d.Signature != "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk" {
		t.Fatalf("Inspect's parts: %+v", d)
	}
}

func token(header, payload string) string {
	return b64url(header) + "." + b64url(payload) + "."
}

func TestWarnings(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	for _, tc := range []struct {
		name, header, payload, want string
	}{
		{"clean", `{"alg":"HS256"}`, `{"sub":"1","exp":2000000100}`, ""},
		{"alg none", `{"alg":"None"}`, `{"sub":"1"}`, `alg is "none"`},
		{"not yet valid", `{"alg":"RS256"}`, `{"nbf":2000000100}`, "token is not valid yet (nbf is in the future)"},
		{"expired", `{"alg":"RS256"}`, `{"exp":1999999999}`, "token has expired (exp is in the past)"},
		{"issued in the future", `{"alg":"RS256"}`, `{"iat":2000000001}`, "token was issued in the future (iat is after now)"},
		{"exp not a number", `{"alg":"RS256"}`, `{"exp":"soon"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := jwt.Inspect(token(tc.header, tc.payload), now)
			if err != nil {
				t.Fatal(err)
			}
			warning := strings.Join(d.Warnings, "; ")
			if (tc.want == "") != (warning == "") || !strings.Contains(warning, tc.want) {
				t.Fatalf("warning %q, want %q", warning, tc.want)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	for name, tok := range map[string]string{
		"empty":           "",
		"two parts":       "a.b",
		"JWE":             "a.b.c.d.e",
		"header not b64":  "!!!.e30.",
		"header not JSON": b64url("nope") + ".e30.",
		"payload array":   "e30." + b64url("[1]") + ".",
		"payload null":    "e30." + b64url("null") + ".",
		"bad signature":   "e30.e30.***",
		"too long":        "e30.e30." + strings.Repeat("A", jwt.MaxTokenBytes),
	} {
		if _, err := jwt.Inspect(tok, time.Now()); !errors.Is(err, jwt.ErrInvalid) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := jwt.Inspect("Bearer "+rfcToken, time.Now()); err != nil {
		t.Errorf("Bearer prefix: %v", err)
	}
}

// TestAnswerIsBounded: a 64 KB token used to decode to a 128 MB answer.
func TestAnswerIsBounded(t *testing.T) {
	deep := strings.Repeat(`{"a":`, jsonfmt.MaxDepth+1) + "1" + strings.Repeat("}", jsonfmt.MaxDepth+1)
	wide := `{"a":` + strings.Repeat("[", jsonfmt.MaxDepth-2) + strings.Repeat("1,", 20_000) + "1" + strings.Repeat("]", jsonfmt.MaxDepth-2) + "}"
	for _, tc := range []struct {
		name, header, payload string
		limit                 jsonfmt.Limit
	}{
		{"deep payload", `{"alg":"HS256"}`, deep, jsonfmt.LimitDepth},
		{"deep header", deep, `{}`, jsonfmt.LimitDepth},
		{"wide payload", `{"alg":"HS256"}`, wide, jsonfmt.LimitOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := token(tc.header, tc.payload)
			if len(tok) > jwt.MaxTokenBytes {
				t.Fatalf("test token of %d bytes is over the input limit", len(tok))
			}
			d, err := jwt.Inspect(tok, time.Now())
			var le *jsonfmt.LimitError
			if !errors.As(err, &le) || le.Limit != tc.limit {
				t.Fatalf("got %v with a %d-byte answer, want the %s limit", err, len(d.Answer), tc.limit)
			}
		})
	}
	// Within the bounds, a deep token still decodes.
	ok := strings.Repeat(`{"a":`, jsonfmt.MaxDepth-1) + "1" + strings.Repeat("}", jsonfmt.MaxDepth-1)
	if _, err := jwt.Inspect(token(`{"alg":"HS256"}`, ok), time.Now()); err != nil {
		t.Fatal(err)
	}
}

func FuzzInspect(f *testing.F) {
	f.Add(rfcToken)
	f.Add("e30.e30.")
	f.Fuzz(func(t *testing.T, tok string) {
		d, err := jwt.Inspect(tok, time.Now())
		if err == nil && !json.Valid([]byte(d.Answer)) {
			t.Fatalf("answer for %q is not JSON: %s", tok, d.Answer)
		}
	})
}
