package jwt

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Bounds on the key text and the keys in it.
const (
	MaxKeyBytes    = 64 << 10
	MaxJWKSKeys    = 100
	MinRSABits     = 2048 // below: a weak key, the token is not valid
	MaxRSABits     = 8192 // above: refused, as costly and never needed
	minHMACWarning = 32   // an HMAC secret shorter than this is warned about
)

// ErrInvalidKey is wrapped by every error about key text that cannot be
// read: not PEM, JWK or JWKS, a private key, a malformed or unsupported key.
var ErrInvalidKey = errors.New("invalid key")

func invalidKey(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidKey, fmt.Sprintf(format, args...))
}

// keyKind is the family of a key, which decides the algorithms it fits.
type keyKind int

const (
	kindHMAC keyKind = iota
	kindRSA
	kindEC
	kindEd25519
)

// key is one verification key, with what a JWK says of it.
type key struct {
	kind    keyKind
	secret  []byte
	rsa     *rsa.PublicKey
	ec      *ecdsa.PublicKey
	ed25519 ed25519.PublicKey
	// kid, alg and use are the JWK's members, empty for other keys.
	kid, alg, use string
}

// describe says what the key is: "an RSA public key of 2048 bits".
func (k key) describe() string {
	switch k.kind {
	case kindHMAC:
		return fmt.Sprintf("an HMAC secret of %d bytes", len(k.secret))
	case kindRSA:
		return fmt.Sprintf("an RSA public key of %d bits", k.rsa.N.BitLen())
	case kindEC:
		return "an EC public key on " + k.ec.Curve.Params().Name
	default:
		return "an Ed25519 public key"
	}
}

// parseKeys reads key text: PEM (a public key, PKCS#1 RSA public key or
// certificate), a JWK or a JWKS document (JSON), or else an HMAC secret
// taken byte for byte. set reports a JWKS, whose key is chosen by kid.
func parseKeys(text string) (keys []key, set bool, err error) {
	if len(text) > MaxKeyBytes {
		return nil, false, invalidKey("the key is longer than %d bytes", MaxKeyBytes)
	}
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "":
		return nil, false, invalidKey("the key is empty: give an HMAC secret, a PEM public key, a JWK or a JWKS")
	case strings.HasPrefix(trimmed, "-----BEGIN"):
		k, err := parsePEM(trimmed)
		return []key{k}, false, err
	case strings.HasPrefix(trimmed, "{"):
		return parseJSONKeys(trimmed)
	}
	return []key{{kind: kindHMAC, secret: []byte(text)}}, false, nil
}

func parsePEM(text string) (key, error) {
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return key{}, invalidKey("the PEM block is malformed")
	}
	if strings.Contains(block.Type, "PRIVATE") {
		return key{}, invalidKey("this is a private key (%s): verifying needs only the public key, and a private key should never be pasted into a web service", block.Type)
	}
	var public any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		public, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		public, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
			public = cert.PublicKey
		}
	default:
		return key{}, invalidKey("a PEM block of type %.40q is not a key; give PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE", block.Type)
	}
	if err != nil {
		return key{}, invalidKey("the %s cannot be read: %v", strings.ToLower(block.Type), err)
	}
	return fromPublic(public)
}

func fromPublic(public any) (key, error) {
	switch p := public.(type) {
	case *rsa.PublicKey:
		if p.N.BitLen() > MaxRSABits {
			return key{}, invalidKey("RSA keys of more than %d bits are not accepted; this one has %d", MaxRSABits, p.N.BitLen())
		}
		return key{kind: kindRSA, rsa: p}, nil
	case *ecdsa.PublicKey:
		return key{kind: kindEC, ec: p}, nil
	case ed25519.PublicKey:
		return key{kind: kindEd25519, ed25519: p}, nil
	}
	return key{}, invalidKey("a %T cannot verify a JWT (RSA, EC P-256/384/521 and Ed25519 keys can)", public)
}

// jwk is a JSON Web Key (RFC 7517), with the members of the kinds read:
// RSA (n, e), EC (crv, x, y), OKP (crv Ed25519, x) and oct (k).
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
	K   string `json:"k"`
}

func parseJSONKeys(text string) ([]key, bool, error) {
	var doc struct {
		jwk
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return nil, false, invalidKey("the key starts with { but is not a JWK or JWKS in JSON: %v", err)
	}
	if doc.Keys == nil {
		k, err := doc.jwk.key()
		return []key{k}, false, err
	}
	if len(doc.Keys) > MaxJWKSKeys {
		return nil, false, invalidKey("the JWKS has %d keys; at most %d are read", len(doc.Keys), MaxJWKSKeys)
	}
	var keys []key
	for i, raw := range doc.Keys {
		var j jwk
		if err := json.Unmarshal(raw, &j); err != nil {
			return nil, false, invalidKey("key %d of the JWKS is not a JWK: %v", i+1, err)
		}
		if j.Use == "enc" {
			continue // an encryption key, which no signature is checked with
		}
		k, err := j.key()
		if err != nil {
			return nil, false, fmt.Errorf("key %d of the JWKS (kid %.40q): %w", i+1, j.Kid, err)
		}
		keys = append(keys, k)
	}
	return keys, true, nil
}

// curveNamed returns the JWK curve of ES256, ES384 or ES512 by its name.
func curveNamed(name string) elliptic.Curve {
	switch name {
	case "P-256":
		return elliptic.P256()
	case "P-384":
		return elliptic.P384()
	case "P-521":
		return elliptic.P521()
	}
	return nil
}

func (j jwk) key() (key, error) {
	k := key{kid: j.Kid, alg: j.Alg, use: j.Use}
	member := func(name, value string) ([]byte, error) {
		b, err := decodeSegment(value)
		if err != nil || len(b) == 0 {
			return nil, invalidKey("the %s JWK's %q is missing or not base64url", j.Kty, name)
		}
		return b, nil
	}
	switch j.Kty {
	case "oct":
		secret, err := member("k", j.K)
		k.kind, k.secret = kindHMAC, secret
		return k, err
	case "RSA":
		n, err := member("n", j.N)
		if err != nil {
			return key{}, err
		}
		e, err := member("e", j.E)
		if err != nil {
			return key{}, err
		}
		exponent := new(big.Int).SetBytes(e)
		if !exponent.IsInt64() || exponent.Int64() < 3 || exponent.Int64() > 1<<31-1 || exponent.Bit(0) == 0 {
			return key{}, invalidKey("the RSA JWK's exponent e is not an odd number from 3 to 2^31-1")
		}
		public, err := fromPublic(&rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(exponent.Int64())})
		public.kid, public.alg, public.use = k.kid, k.alg, k.use
		return public, err
	case "EC":
		curve := curveNamed(j.Crv)
		if curve == nil {
			return key{}, invalidKey("the EC JWK's curve %.20q is not P-256, P-384 or P-521", j.Crv)
		}
		x, err := member("x", j.X)
		if err != nil {
			return key{}, err
		}
		y, err := member("y", j.Y)
		if err != nil {
			return key{}, err
		}
		size := (curve.Params().BitSize + 7) / 8
		if len(x) != size || len(y) != size {
			return key{}, invalidKey("the EC JWK's x and y must be %d bytes each on %s", size, j.Crv)
		}
		public, err := ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
		if err != nil {
			return key{}, invalidKey("the EC JWK's point is not on %s", j.Crv)
		}
		k.kind, k.ec = kindEC, public
		return k, nil
	case "OKP":
		if j.Crv != "Ed25519" {
			return key{}, invalidKey("the OKP JWK's curve %.20q is not Ed25519", j.Crv)
		}
		x, err := member("x", j.X)
		if err != nil {
			return key{}, err
		}
		if len(x) != ed25519.PublicKeySize {
			return key{}, invalidKey("the Ed25519 JWK's x must be %d bytes", ed25519.PublicKeySize)
		}
		k.kind, k.ed25519 = kindEd25519, ed25519.PublicKey(x)
		return k, nil
	}
	return key{}, invalidKey("a JWK of kty %.20q cannot verify a JWT (RSA, EC, OKP and oct can)", j.Kty)
}
