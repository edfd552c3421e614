package server_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"secutil/store"
)

// signedJWT is a token of header and claims signed by sign, which gets the
// signing input.
func signedJWT(t testing.TB, header, claims map[string]any, sign func(input []byte) []byte) string {
	t.Helper()
	enc := func(v any) string {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(raw)
	}
	input := enc(header) + "." + enc(claims)
	return input + "." + base64.RawURLEncoding.EncodeToString(sign([]byte(input)))
}

func hs256(secret string) func([]byte) []byte {
	return func(input []byte) []byte {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(input)
		return mac.Sum(nil)
	}
}

func publicPEM(t testing.TB, public any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(public)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// TestJWTVerifyRoute: a token and a key give valid, or not valid with the
// reason, as a 200; a token or key that cannot be read is a 400.
func TestJWTVerifyRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := e.key("ann@example.com", store.PlanPro)
	a, _ := e.store.AccountByEmail(t.Context(), "ann@example.com")
	const secret = "a shared secret of at least 32 bytes"
	hour := time.Now().Add(time.Hour).Unix()
	hsHeader := map[string]any{"alg": "HS256", "typ": "JWT"}
	good := signedJWT(t, hsHeader, map[string]any{"sub": "ann", "exp": hour}, hs256(secret))

	edPublic, edPrivate, _ := ed25519.GenerateKey(rand.Reader)
	edToken := signedJWT(t, map[string]any{"alg": "EdDSA"}, map[string]any{"sub": "ann", "exp": hour},
		func(input []byte) []byte { return ed25519.Sign(edPrivate, input) })
	ecPrivate, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	esToken := signedJWT(t, map[string]any{"alg": "ES256", "kid": "k2"}, map[string]any{"sub": "ann", "exp": hour}, func(input []byte) []byte {
		digest := sha256.Sum256(input)
		r, s, err := ecdsa.Sign(rand.Reader, ecPrivate, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		return append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	})
	b64 := base64.RawURLEncoding.EncodeToString
	jwks := `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":"` + b64(edPublic) + `"},` +
		`{"kty":"EC","crv":"P-256","kid":"k2","x":"` + b64(ecPrivate.X.FillBytes(make([]byte, 32))) + `","y":"` + b64(ecPrivate.Y.FillBytes(make([]byte, 32))) + `"}]}`

	for _, tc := range []struct {
		name, token, key string
		valid            bool
		reason           string
	}{
		{"HS256 with its secret", good, secret, true, ""},
		{"EdDSA with a PEM public key", edToken, publicPEM(t, edPublic), true, ""},
		{"ES256 by kid from a JWKS", esToken, jwks, true, ""},
		{"a wrong secret", good, secret + "!", false, "bad_signature"},
		{"expired", signedJWT(t, hsHeader, map[string]any{"exp": time.Now().Add(-time.Hour).Unix()}, hs256(secret)), secret, false, "expired"},
		{"not valid yet", signedJWT(t, hsHeader, map[string]any{"nbf": hour}, hs256(secret)), secret, false, "not_yet_valid"},
		{"issued in the future", signedJWT(t, hsHeader, map[string]any{"iat": hour}, hs256(secret)), secret, false, "issued_in_future"},
		{"alg none", "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", secret, false, "alg_none"},
		// The classic confusion: an HMAC token checked against a public key.
		{"HS256 with a public key", signedJWT(t, hsHeader, map[string]any{"sub": "ann"}, hs256(publicPEM(t, edPublic))), publicPEM(t, edPublic), false, "algorithm_key_mismatch"},
	} {
		m := e.post("/api/v1/jwt_verify", map[string]string{"token": tc.token, "key": tc.key}, "X-API-Key", key).want(200).json()
		if m["valid"] != tc.valid || (tc.reason != "" && m["reason"] != tc.reason) || m["message"] == "" {
			t.Errorf("%s: %v, want valid %v (%s)", tc.name, m, tc.valid, tc.reason)
		}
		if _, ok := m["header"].(map[string]any); !ok {
			t.Errorf("%s: header %v is not an object", tc.name, m["header"])
		}
		if _, ok := m["warnings"].([]any); !ok {
			t.Errorf("%s: warnings %v is not an array", tc.name, m["warnings"])
		}
	}
	m := e.post("/api/v1/jwt_verify", map[string]string{"token": esToken, "key": jwks}, "X-API-Key", key).want(200).json()
	if m["algorithm"] != "ES256" || m["key_id"] != "k2" || m["payload"].(map[string]any)["sub"] != "ann" {
		t.Errorf("JWKS answer %v", m)
	}
	// A token that verifies with a short secret is valid, with a warning.
	short := signedJWT(t, hsHeader, map[string]any{"sub": "ann", "exp": hour}, hs256("short"))
	m = e.post("/api/v1/jwt_verify", map[string]string{"token": short, "key": "short"}, "X-API-Key", key).want(200).json()
	if warnings := anyStrings(m["warnings"]); m["valid"] != true || len(warnings) != 1 || !strings.Contains(warnings[0], "5 bytes") {
		t.Errorf("a short secret: %v", m)
	}

	before := e.usage(a.ID)
	e.post("/api/v1/jwt_verify", map[string]string{"token": "not a token", "key": secret}, "X-API-Key", key).wantError(400, "invalid_jwt")
	e.post("/api/v1/jwt_verify", map[string]string{"token": good, "key": "-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n"}, "X-API-Key", key).wantError(400, "invalid_jwt_key")
	e.post("/api/v1/jwt_verify", map[string]string{"token": good, "key": `{"keys": 5}`}, "X-API-Key", key).wantError(400, "invalid_jwt_key")
	e.post("/api/v1/jwt_verify", map[string]string{"token": good}, "X-API-Key", key).wantError(400, "missing_field")
	if after := e.usage(a.ID); after != before {
		t.Errorf("refused calls counted: usage %d → %d", before, after)
	}
	e.post("/api/v1/jwt_verify", map[string]string{"token": good, "key": secret}).wantError(401, "unauthorized")
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, s := range list {
		out = append(out, s.(string))
	}
	return out
}
