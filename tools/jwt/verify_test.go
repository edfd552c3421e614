package jwt_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/tools/jwt"
)

// The keys of the tests, made once: RSA keys take a moment.
var testKeys = sync.OnceValue(func() (k struct {
	rsa, rsaOther, rsaWeak *rsa.PrivateKey
	p256, p384, p521       *ecdsa.PrivateKey
	ed                     ed25519.PrivateKey
},
) {
	k.rsa, _ = rsa.GenerateKey(rand.Reader, 2048)
	k.rsaOther, _ = rsa.GenerateKey(rand.Reader, 2048)
	k.rsaWeak, _ = rsa.GenerateKey(rand.Reader, 1024)
	k.p256, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k.p384, _ = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	k.p521, _ = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	_, k.ed, _ = ed25519.GenerateKey(rand.Reader)
	return k
})

var now = time.Unix(2_000_000_000, 0)

func pemOf(t *testing.T, public any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(public)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwkOf writes the public JWK of a key, with extra members.
func jwkOf(t *testing.T, public any, extra string) string {
	t.Helper()
	var body string
	switch p := public.(type) {
	case *rsa.PublicKey:
		body = fmt.Sprintf(`"kty":"RSA","n":%q,"e":%q`, b64(p.N.Bytes()), b64(big.NewInt(int64(p.E)).Bytes()))
	case *ecdsa.PublicKey:
		raw, _ := p.Bytes()
		size := (len(raw) - 1) / 2
		body = fmt.Sprintf(`"kty":"EC","crv":%q,"x":%q,"y":%q`, p.Curve.Params().Name, b64(raw[1:1+size]), b64(raw[1+size:]))
	case ed25519.PublicKey:
		body = fmt.Sprintf(`"kty":"OKP","crv":"Ed25519","x":%q`, b64(p))
	case []byte:
		body = fmt.Sprintf(`"kty":"oct","k":%q`, b64(p))
	}
	if extra != "" {
		body += "," + extra
	}
	return "{" + body + "}"
}

var hashes = map[string]crypto.Hash{"256": crypto.SHA256, "384": crypto.SHA384, "512": crypto.SHA512}

func digest(h crypto.Hash, input string) []byte {
	var d hash.Hash
	switch h {
	case crypto.SHA256:
		d = sha256.New()
	case crypto.SHA384:
		d = sha512.New384()
	default:
		d = sha512.New()
	}
	d.Write([]byte(input))
	return d.Sum(nil)
}

// sign writes a JWS of header and payload with alg and a private key (or
// an HMAC secret as []byte).
func sign(t *testing.T, alg string, private any, header, payload string) string {
	t.Helper()
	input := b64url(header) + "." + b64url(payload)
	h := hashes[alg[len(alg)-3:]]
	var sig []byte
	var err error
	switch {
	case strings.HasPrefix(alg, "HS"):
		newHash := map[crypto.Hash]func() hash.Hash{crypto.SHA256: sha256.New, crypto.SHA384: sha512.New384, crypto.SHA512: sha512.New}[h]
		mac := hmac.New(newHash, private.([]byte))
		mac.Write([]byte(input))
		sig = mac.Sum(nil)
	case strings.HasPrefix(alg, "RS"):
		sig, err = rsa.SignPKCS1v15(rand.Reader, private.(*rsa.PrivateKey), h, digest(h, input))
	case strings.HasPrefix(alg, "PS"):
		sig, err = rsa.SignPSS(rand.Reader, private.(*rsa.PrivateKey), h, digest(h, input), &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
	case strings.HasPrefix(alg, "ES"):
		k := private.(*ecdsa.PrivateKey)
		r, s, e := ecdsa.Sign(rand.Reader, k, digest(h, input))
		size := (k.Curve.Params().BitSize + 7) / 8
		sig, err = append(r.FillBytes(make([]byte, size)), s.FillBytes(make([]byte, size))...), e
	default: // EdDSA
		sig = ed25519.Sign(private.(ed25519.PrivateKey), []byte(input))
	}
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

func header(alg string) string { return fmt.Sprintf(`{"alg":%q,"typ":"JWT"}`, alg) }

const claims = `{"sub":"1","exp":2000000600,"nbf":1999999000,"iat":1999999000}`

func TestVerifyValid(t *testing.T) {
	t.Parallel()
	k := testKeys()
	secret := []byte(strings.Repeat("s", 64))
	for _, tc := range []struct {
		alg     string
		private any
		key     string
		desc    string
	}{
		{"HS256", secret, string(secret), "an HMAC secret of 64 bytes"},
		{"HS384", secret, string(secret), "an HMAC secret of 64 bytes"},
		{"HS512", secret, jwkOf(t, secret, ""), "an HMAC secret of 64 bytes"},
		{"RS256", k.rsa, pemOf(t, &k.rsa.PublicKey), "an RSA public key of 2048 bits"},
		{"RS384", k.rsa, string(pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&k.rsa.PublicKey)})), "an RSA public key of 2048 bits"},
		{"RS512", k.rsa, jwkOf(t, &k.rsa.PublicKey, ""), "an RSA public key of 2048 bits"},
		{"PS256", k.rsa, pemOf(t, &k.rsa.PublicKey), "an RSA public key of 2048 bits"},
		{"PS384", k.rsa, pemOf(t, &k.rsa.PublicKey), "an RSA public key of 2048 bits"},
		{"PS512", k.rsa, jwkOf(t, &k.rsa.PublicKey, `"alg":"PS512"`), "an RSA public key of 2048 bits"},
		{"ES256", k.p256, pemOf(t, &k.p256.PublicKey), "an EC public key on P-256"},
		{"ES384", k.p384, jwkOf(t, &k.p384.PublicKey, ""), "an EC public key on P-384"},
		{"ES512", k.p521, pemOf(t, &k.p521.PublicKey), "an EC public key on P-521"},
		{"EdDSA", k.ed, pemOf(t, k.ed.Public()), "an Ed25519 public key"},
		{"Ed25519", k.ed, jwkOf(t, k.ed.Public(), ""), "an Ed25519 public key"},
	} {
		t.Run(tc.alg, func(t *testing.T) {
			v, err := jwt.Verify(sign(t, tc.alg, tc.private, header(tc.alg), claims), tc.key, now)
			if err != nil || !v.Valid || v.Reason != "" || v.Algorithm != tc.alg || v.Key != tc.desc || len(v.Warnings) != 0 {
				t.Fatalf("%+v, %v", v, err)
			}
			// The same token with the payload changed does not verify.
			parts := strings.Split(sign(t, tc.alg, tc.private, header(tc.alg), claims), ".")
			parts[1] = b64url(strings.Replace(claims, `"sub":"1"`, `"sub":"2"`, 1))
			if v, _ := jwt.Verify(strings.Join(parts, "."), tc.key, now); v.Valid || v.Reason != jwt.ReasonSignature {
				t.Fatalf("a changed payload: %+v", v)
			}
		})
	}
}

// TestVerifyCertificate: a certificate's public key verifies.
func TestVerifyCertificate(t *testing.T) {
	t.Parallel()
	k := testKeys()
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "issuer"}, NotBefore: now, NotAfter: now.Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &k.p256.PublicKey, k.p256)
	if err != nil {
		t.Fatal(err)
	}
	cert := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	if v, err := jwt.Verify(sign(t, "ES256", k.p256, header("ES256"), claims), cert, now); err != nil || !v.Valid {
		t.Fatalf("%+v, %v", v, err)
	}
}

func TestVerifyReasons(t *testing.T) {
	t.Parallel()
	k := testKeys()
	rsaPEM := pemOf(t, &k.rsa.PublicKey)
	secret := []byte(strings.Repeat("s", 32))
	for _, tc := range []struct {
		name, token, key string
		reason           jwt.Reason
		message          string
	}{
		{"another key", sign(t, "RS256", k.rsaOther, header("RS256"), claims), rsaPEM, jwt.ReasonSignature, "it is not the RSA signature"},
		{"another secret", sign(t, "HS256", []byte("other secret of thirty-two bytes"), header("HS256"), claims), string(secret), jwt.ReasonSignature, "the HMAC differs"},
		{"alg none", b64url(`{"alg":"none"}`) + "." + b64url(claims) + ".", string(secret), jwt.ReasonAlgNone, `alg is "none"`},
		{"alg NONE", b64url(`{"alg":"NONE"}`) + "." + b64url(claims) + ".", rsaPEM, jwt.ReasonAlgNone, "never valid"},
		{"no alg", b64url(`{}`) + "." + b64url(claims) + ".", rsaPEM, jwt.ReasonUnsupportedAlg, `alg "" is not one verified here`},
		{"HS1", sign(t, "HS256", secret, `{"alg":"HS1"}`, claims), string(secret), jwt.ReasonUnsupportedAlg, "HS256/384/512"},
		{"crit", sign(t, "HS256", secret, `{"alg":"HS256","crit":["b64"],"b64":false}`, claims), string(secret), jwt.ReasonCritical, "crit"},
		// The algorithm-confusion attack: an HS256 token whose HMAC key is
		// the RSA public key's PEM text, which a naive verifier would use
		// as the secret.
		{"HS256 with a public key", sign(t, "HS256", []byte(rsaPEM), header("HS256"), claims), rsaPEM, jwt.ReasonKeyMismatch, "algorithm-confusion attack"},
		{"RS256 with a secret", sign(t, "RS256", k.rsa, header("RS256"), claims), string(secret), jwt.ReasonKeyMismatch, "RS256, which an HMAC secret of 32 bytes cannot verify"},
		{"ES256 with P-384", sign(t, "ES256", k.p256, header("ES256"), claims), pemOf(t, &k.p384.PublicKey), jwt.ReasonKeyMismatch, "an EC public key on P-384 cannot verify"},
		{"EdDSA with RSA", sign(t, "EdDSA", k.ed, header("EdDSA"), claims), rsaPEM, jwt.ReasonKeyMismatch, "EdDSA"},
		{"JWK for another alg", sign(t, "RS256", k.rsa, header("RS256"), claims), jwkOf(t, &k.rsa.PublicKey, `"alg":"PS256"`), jwt.ReasonKeyMismatch, "the token says RS256 and the key is for PS256"},
		{"weak RSA", sign(t, "RS256", k.rsaWeak, header("RS256"), claims), pemOf(t, &k.rsaWeak.PublicKey), jwt.ReasonWeakKey, "an RSA key of 1024 bits; under 2048"},
		{"DER ECDSA", derECDSA(t, k.p256), pemOf(t, &k.p256.PublicKey), jwt.ReasonSignature, "is r||s, 64 bytes"},
		{"expired", sign(t, "HS256", secret, header("HS256"), `{"exp":1999999939}`), string(secret), jwt.ReasonExpired, "expired at 2033-05-18T03:32:19Z (exp), more than a minute ago"},
		{"not yet valid", sign(t, "HS256", secret, header("HS256"), `{"nbf":2000000061}`), string(secret), jwt.ReasonNotYetValid, "not valid before 2033-05-18T03:34:21Z"},
		{"issued in the future", sign(t, "HS256", secret, header("HS256"), `{"iat":2000000061}`), string(secret), jwt.ReasonIssuedInFuture, "issued at 2033-05-18T03:34:21Z (iat), in the future"},
		{"exp a string", sign(t, "HS256", secret, header("HS256"), `{"exp":"tomorrow"}`), string(secret), jwt.ReasonMalformedClaim, "the exp claim is not a NumericDate"},
		{"iat a bool", sign(t, "HS256", secret, header("HS256"), `{"iat":true}`), string(secret), jwt.ReasonMalformedClaim, "the iat claim"},
	} {
		v, err := jwt.Verify(tc.token, tc.key, now)
		if err != nil || v.Valid || v.Reason != tc.reason || !strings.Contains(v.Message, tc.message) {
			t.Errorf("%s: %+v, %v; want %s, %q", tc.name, v, err, tc.reason, tc.message)
		}
	}
}

// derECDSA signs with ES256 in ASN.1 DER, as crypto/ecdsa does, not JWS.
func derECDSA(t *testing.T, k *ecdsa.PrivateKey) string {
	input := b64url(header("ES256")) + "." + b64url(claims)
	sig, err := ecdsa.SignASN1(rand.Reader, k, digest(crypto.SHA256, input))
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

// TestVerifyLeeway: the time claims hold give or take jwt.Leeway.
func TestVerifyLeeway(t *testing.T) {
	t.Parallel()
	secret := []byte(strings.Repeat("s", 32))
	for _, payload := range []string{
		`{"exp":1999999941}`, // expired 59 s ago
		`{"exp":2000000000.5,"nbf":2000000059}`,
		`{"iat":2000000059,"exp":2000000001}`,
	} {
		if v, err := jwt.Verify(sign(t, "HS256", secret, header("HS256"), payload), string(secret), now); err != nil || !v.Valid {
			t.Errorf("%s: %+v, %v", payload, v, err)
		}
	}
}

func TestVerifyJWKS(t *testing.T) {
	t.Parallel()
	k := testKeys()
	set := `{"keys":[` + strings.Join([]string{
		jwkOf(t, &k.rsa.PublicKey, `"kid":"rsa-1","use":"sig"`),
		jwkOf(t, &k.rsaOther.PublicKey, `"kid":"rsa-2"`),
		jwkOf(t, &k.p256.PublicKey, `"kid":"ec-1"`),
		jwkOf(t, &k.rsaOther.PublicKey, `"kid":"enc-1","use":"enc"`),
	}, ",") + `]}`
	withKid := func(alg, kid string) string { return fmt.Sprintf(`{"alg":%q,"kid":%q}`, alg, kid) }
	for _, tc := range []struct {
		name, token string
		valid       bool
		kid         string
		reason      jwt.Reason
		message     string
	}{
		{"by kid", sign(t, "RS256", k.rsaOther, withKid("RS256", "rsa-2"), claims), true, "rsa-2", "", ""},
		{"by kid, the other", sign(t, "PS256", k.rsa, withKid("PS256", "rsa-1"), claims), true, "rsa-1", "", ""},
		{"the only EC key", sign(t, "ES256", k.p256, header("ES256"), claims), true, "ec-1", "", ""},
		{"a kid signed by another key", sign(t, "RS256", k.rsa, withKid("RS256", "rsa-2"), claims), false, "", jwt.ReasonSignature, ""},
		{"unknown kid", sign(t, "RS256", k.rsa, withKid("RS256", "rsa-9"), claims), false, "", jwt.ReasonNoKey, `no key of the JWKS has the token's kid "rsa-9" (its kids: "rsa-1", "rsa-2", "ec-1")`},
		{"two RSA keys, no kid", sign(t, "RS256", k.rsa, header("RS256"), claims), false, "", jwt.ReasonNoKey, "2 keys of the JWKS could be the token's"},
		{"no key fits", sign(t, "EdDSA", k.ed, header("EdDSA"), claims), false, "", jwt.ReasonNoKey, "no key of the JWKS fits EdDSA"},
		{"the kid of a key of another kind", sign(t, "HS256", []byte("x"), withKid("HS256", "ec-1"), claims), false, "", jwt.ReasonKeyMismatch, "algorithm-confusion"},
		{"an encryption key is not used", sign(t, "RS256", k.rsaOther, withKid("RS256", "enc-1"), claims), false, "", jwt.ReasonNoKey, "no key of the JWKS has the token's kid"},
	} {
		v, err := jwt.Verify(tc.token, set, now)
		if err != nil || v.Valid != tc.valid || v.Reason != tc.reason || (tc.valid && v.KeyID != tc.kid) || !strings.Contains(v.Message, tc.message) {
			t.Errorf("%s: %+v, %v", tc.name, v, err)
		}
	}
}

func TestVerifyWarnings(t *testing.T) {
	t.Parallel()
	k := testKeys()
	for _, tc := range []struct {
		name, token, key, warning string
	}{
		{"short secret", sign(t, "HS256", []byte("secret"), header("HS256"), claims), "secret", "the HMAC secret has 6 bytes; RFC 7518 asks for at least 32 for HS256"},
		{"no exp", sign(t, "EdDSA", k.ed, header("EdDSA"), `{"sub":"1"}`), pemOf(t, k.ed.Public()), "no exp claim: it never expires"},
		{"a key in the header", sign(t, "EdDSA", k.ed, `{"alg":"EdDSA","jwk":{"kty":"OKP"}}`, claims), pemOf(t, k.ed.Public()), "it was ignored"},
	} {
		v, err := jwt.Verify(tc.token, tc.key, now)
		if err != nil || !v.Valid || len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], tc.warning) {
			t.Errorf("%s: %+v, %v", tc.name, v, err)
		}
	}
}

func TestVerifyErrors(t *testing.T) {
	t.Parallel()
	k := testKeys()
	token := sign(t, "HS256", []byte("secret"), header("HS256"), claims)
	privateDER, _ := x509.MarshalPKCS8PrivateKey(k.p256)
	for _, tc := range []struct{ name, token, key, want string }{
		{"empty key", token, " \n", "the key is empty"},
		{"private key", token, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: privateDER})), "this is a private key (PRIVATE KEY)"},
		{"broken PEM", token, "-----BEGIN PUBLIC KEY-----\nnope\n", "the PEM block is malformed"},
		{"bad DER", token, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: []byte("nope")})), "the public key cannot be read"},
		{"PEM of another type", token, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: []byte("x")})), "is not a key"},
		{"not JSON", token, "{nope", "is not a JWK or JWKS"},
		{"JWK of unknown kty", token, `{"kty":"XYZ"}`, `kty "XYZ" cannot verify`},
		{"EC point off the curve", token, `{"kty":"EC","crv":"P-256","x":"` + b64(make([]byte, 32)) + `","y":"` + b64(make([]byte, 32)) + `"}`, "not on P-256"},
		{"RSA exponent 1", token, `{"kty":"RSA","n":"` + b64(k.rsa.N.Bytes()) + `","e":"AQ"}`, "exponent"},
		{"RSA too large", token, `{"kty":"RSA","n":"` + b64(append([]byte{1}, make([]byte, 1025)...)) + `","e":"AQAB"}`, "more than 8192 bits"},
		{"too many keys", token, `{"keys":[` + strings.Repeat(`{"kty":"oct","k":"AQ"},`, jwt.MaxJWKSKeys) + `{"kty":"oct","k":"AQ"}]}`, "at most 100"},
		{"bad key in a set", token, `{"keys":[{"kty":"oct","kid":"a"}]}`, `key 1 of the JWKS (kid "a")`},
		{"key too long", token, strings.Repeat("k", jwt.MaxKeyBytes+1), "longer than 65536 bytes"},
	} {
		_, err := jwt.Verify(tc.token, tc.key, now)
		if !errors.Is(err, jwt.ErrInvalidKey) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := jwt.Verify("a.b", "secret", now); !errors.Is(err, jwt.ErrInvalid) {
		t.Errorf("an undecodable token: %v", err)
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(rfcToken, "secret")
	f.Add("e30.e30.", `{"keys":[{"kty":"oct","k":"AQ","kid":"a"}]}`)
	f.Add(b64url(`{"alg":"ES256"}`)+".e30."+b64(make([]byte, 64)), `{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}`)
	evenModulus := append([]byte{0xc0}, make([]byte, 255)...)
	f.Add(b64url(`{"alg":"PS256"}`)+".e30."+b64(make([]byte, 256)), `{"kty":"RSA","n":"`+b64(evenModulus)+`","e":"AQAB"}`)
	f.Fuzz(func(t *testing.T, token, key string) {
		v, err := jwt.Verify(token, key, now)
		if err != nil {
			return
		}
		if v.Valid == (v.Reason != "") || v.Message == "" {
			t.Fatalf("Verify(%q, %q) = %+v: valid xor a reason, and a message", token, key, v)
		}
		if v.Valid && !json.Valid(v.Payload) {
			t.Fatalf("valid with a payload that is not JSON: %+v", v)
		}
	})
}
