package jwt

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rsa"
	_ "crypto/sha256" // registers SHA-256 for crypto.Hash.New
	_ "crypto/sha512" // registers SHA-384 and SHA-512
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Leeway is the clock skew Verify allows between the issuer's clock and
// the caller's: a token is still valid up to a minute after its exp, from
// a minute before its nbf, and with an iat up to a minute ahead.
const Leeway = time.Minute

// leewayText is Leeway in words, for the messages.
const leewayText = "a minute"

// Reason says why a token is not valid.
type Reason string

// The reasons, in the order Verify checks them: the first that applies is
// the answer.
const (
	ReasonAlgNone        Reason = "alg_none"               // alg "none": unsigned, never valid
	ReasonUnsupportedAlg Reason = "unsupported_algorithm"  // no alg, or one not verified here
	ReasonCritical       Reason = "critical_header"        // crit names extensions not understood here
	ReasonNoKey          Reason = "no_matching_key"        // no key of the JWKS is the token's
	ReasonKeyMismatch    Reason = "algorithm_key_mismatch" // alg does not fit the key (HS256 with a public key)
	ReasonWeakKey        Reason = "weak_key"               // an RSA key under MinRSABits
	ReasonSignature      Reason = "bad_signature"          // the signature does not verify
	ReasonMalformedClaim Reason = "malformed_claim"        // exp, nbf or iat not a NumericDate
	ReasonExpired        Reason = "expired"                // now is past exp + Leeway
	ReasonNotYetValid    Reason = "not_yet_valid"          // now is before nbf - Leeway
	ReasonIssuedInFuture Reason = "issued_in_future"       // iat is after now + Leeway
)

// Verdict is Verify's answer.
type Verdict struct {
	Valid bool
	// Reason is empty when Valid; Message says in a sentence why not, or,
	// when valid, what was checked.
	Reason  Reason
	Message string
	// Algorithm is the header's alg; KeyID the kid of the JWKS key used
	// (empty for other keys); Key describes the key that was used ("an RSA
	// public key of 2048 bits"), empty when none was.
	Algorithm, KeyID, Key string
	// Warnings are about a token or key that verified but deserves doubt:
	// a short HMAC secret, no exp, a key carried in the header.
	Warnings []string
	// Header and Payload are the token's JSON objects, as Decoded's.
	Header, Payload json.RawMessage
}

// algorithm is a JWS algorithm Verify knows (RFC 7518 §3, RFC 8037).
type algorithm struct {
	kind  keyKind
	hash  crypto.Hash // none for EdDSA
	pss   bool
	curve string // the EC curve of ES256/384/512
}

// algorithmNamed returns the algorithm of a JWS alg name.
func algorithmNamed(alg string) (algorithm, bool) {
	switch alg {
	case "HS256", "HS384", "HS512":
		return algorithm{kind: kindHMAC, hash: hashOfSuffix(alg)}, true
	case "RS256", "RS384", "RS512":
		return algorithm{kind: kindRSA, hash: hashOfSuffix(alg)}, true
	case "PS256", "PS384", "PS512":
		return algorithm{kind: kindRSA, hash: hashOfSuffix(alg), pss: true}, true
	case "ES256":
		return algorithm{kind: kindEC, hash: crypto.SHA256, curve: "P-256"}, true
	case "ES384":
		return algorithm{kind: kindEC, hash: crypto.SHA384, curve: "P-384"}, true
	case "ES512":
		return algorithm{kind: kindEC, hash: crypto.SHA512, curve: "P-521"}, true
	case "EdDSA", "Ed25519": // Ed25519: RFC 9864's fully specified name
		return algorithm{kind: kindEd25519}, true
	}
	return algorithm{}, false
}

func hashOfSuffix(alg string) crypto.Hash {
	switch alg[2:] {
	case "384":
		return crypto.SHA384
	case "512":
		return crypto.SHA512
	}
	return crypto.SHA256
}

const supportedAlgorithms = "HS256/384/512, RS256/384/512, PS256/384/512, ES256/384/512 and EdDSA (Ed25519)"

// fits reports whether k can verify a under RFC 7518: the kind of key of
// the algorithm, the curve of ES*, and the alg a JWK names, if any.
func (a algorithm) fits(k key, alg string) bool {
	return k.kind == a.kind && (k.alg == "" || k.alg == alg) &&
		(a.kind != kindEC || k.ec.Curve.Params().Name == a.curve)
}

// Verify checks token against keyText at now: an HMAC secret (the text
// byte for byte), a PEM public key or certificate (RSA, EC, Ed25519), a JWK,
// or a JWKS document, whose key is the one of the token's kid or, with no
// kid, the only one that fits the token's alg. A token or key that cannot
// be read is an error (wrapping ErrInvalid or ErrInvalidKey, or a
// *jsonfmt.LimitError); everything else is a Verdict, valid or with its
// Reason.
func Verify(token, keyText string, now time.Time) (Verdict, error) {
	t, err := split(token)
	if err != nil {
		return Verdict{}, err
	}
	keys, set, err := parseKeys(keyText)
	if err != nil {
		return Verdict{}, err
	}
	var header struct {
		Alg  any             `json:"alg"`
		Kid  any             `json:"kid"`
		Crit json.RawMessage `json:"crit"`
		JWK  json.RawMessage `json:"jwk"`
		JKU  json.RawMessage `json:"jku"`
		X5U  json.RawMessage `json:"x5u"`
		X5C  json.RawMessage `json:"x5c"`
	}
	json.Unmarshal(t.header, &header)
	alg, _ := header.Alg.(string)
	kid, _ := header.Kid.(string)
	v := Verdict{Algorithm: alg, Header: t.header, Payload: t.payload}
	fail := func(r Reason, format string, args ...any) (Verdict, error) {
		v.Reason, v.Message = r, fmt.Sprintf(format, args...)
		return v, nil
	}
	if header.JWK != nil || header.JKU != nil || header.X5U != nil || header.X5C != nil {
		v.Warnings = append(v.Warnings, "the header carries or points to a key of its own (jwk, jku, x5u or x5c); it was ignored, as a verifier must not trust it")
	}

	a, known := algorithmNamed(alg)
	switch {
	case strings.EqualFold(alg, "none"):
		return fail(ReasonAlgNone, `alg is "none": the token is unsigned and anyone could have written it, so it is never valid`)
	case !known:
		return fail(ReasonUnsupportedAlg, "alg %.40q is not one verified here (%s)", alg, supportedAlgorithms)
	case header.Crit != nil:
		return fail(ReasonCritical, "the header's crit names extensions that must be understood to trust the token, and none are here")
	}

	k, noKey := choose(keys, set, kid, alg, a)
	if noKey != "" {
		return fail(ReasonNoKey, "%s", noKey)
	}
	v.Key = k.describe()
	if set {
		v.KeyID = k.kid
	}
	if !a.fits(k, alg) {
		if a.kind == kindHMAC && k.kind != kindHMAC {
			return fail(ReasonKeyMismatch, "the token says %s, an HMAC algorithm, and the key is %s: checking an HMAC with a public key is the algorithm-confusion attack, so it is refused", alg, k.describe())
		}
		if k.alg != "" && k.alg != alg {
			return fail(ReasonKeyMismatch, "the token says %s and the key is for %s", alg, k.alg)
		}
		return fail(ReasonKeyMismatch, "the token says %s, which %s cannot verify", alg, k.describe())
	}
	if k.kind == kindRSA && k.rsa.N.BitLen() < MinRSABits {
		return fail(ReasonWeakKey, "the key is an RSA key of %d bits; under %d bits RSA can be factored, so no signature of it is trusted", k.rsa.N.BitLen(), MinRSABits)
	}
	if k.kind == kindHMAC && len(k.secret) < max(minHMACWarning, a.hash.Size()) {
		v.Warnings = append(v.Warnings, fmt.Sprintf("the HMAC secret has %d bytes; RFC 7518 asks for at least %d for %s, and a short secret can be guessed offline from any token", len(k.secret), a.hash.Size(), alg))
	}
	if why := checkSignature(a, k, t.signingInput, t.signature); why != "" {
		return fail(ReasonSignature, "the signature does not verify with %s: %s", k.describe(), why)
	}

	var claims timeClaims
	json.Unmarshal(t.payload, &claims)
	exp, okExp := numericDate(claims.Exp)
	nbf, okNbf := numericDate(claims.Nbf)
	iat, okIat := numericDate(claims.Iat)
	for _, c := range []struct {
		name string
		ok   bool
	}{{"exp", okExp}, {"nbf", okNbf}, {"iat", okIat}} {
		if !c.ok {
			return fail(ReasonMalformedClaim, "the %s claim is not a NumericDate (a number of seconds since 1970)", c.name)
		}
	}
	switch {
	case exp != nil && !now.Before(exp.Add(Leeway)):
		return fail(ReasonExpired, "the signature is good, but the token expired at %s (exp), more than %s ago", exp.Format(time.RFC3339), leewayText)
	case nbf != nil && now.Before(nbf.Add(-Leeway)):
		return fail(ReasonNotYetValid, "the signature is good, but the token is not valid before %s (nbf)", nbf.Format(time.RFC3339))
	case iat != nil && now.Add(Leeway).Before(*iat):
		return fail(ReasonIssuedInFuture, "the signature is good, but the token says it was issued at %s (iat), in the future", iat.Format(time.RFC3339))
	}
	if exp == nil {
		v.Warnings = append(v.Warnings, "the token has no exp claim: it never expires")
	}
	v.Valid = true
	v.Message = fmt.Sprintf("the %s signature verifies with %s, and the token is within its time claims (give or take %s)", alg, k.describe(), leewayText)
	return v, nil
}

// choose picks the key to verify with. A single key is the one; in a JWKS,
// the key of the token's kid or, with no kid, the only key that fits.
// When none can be chosen, noKey says why.
func choose(keys []key, set bool, kid, alg string, a algorithm) (k key, noKey string) {
	if !set {
		return keys[0], ""
	}
	var candidates []key
	if kid != "" {
		var kids []string
		for _, k := range keys {
			if k.kid == kid {
				candidates = append(candidates, k)
			}
			kids = append(kids, fmt.Sprintf("%q", k.kid))
		}
		if len(candidates) == 0 {
			return key{}, fmt.Sprintf("no key of the JWKS has the token's kid %.80q (its kids: %s)", kid, strings.Join(kids, ", "))
		}
	} else {
		for _, k := range keys {
			if a.fits(k, alg) && (k.use == "" || k.use == "sig") {
				candidates = append(candidates, k)
			}
		}
		if len(candidates) == 0 {
			return key{}, fmt.Sprintf("the token has no kid, and no key of the JWKS fits %s", alg)
		}
	}
	if len(candidates) > 1 {
		return key{}, fmt.Sprintf("%d keys of the JWKS could be the token's (kid %.80q, alg %s): which one is not clear", len(candidates), kid, alg)
	}
	return candidates[0], ""
}

// checkSignature verifies sig over input with k under a, and says why not
// ("" when it verifies).
func checkSignature(a algorithm, k key, input string, sig []byte) string {
	if a.kind == kindEd25519 {
		if !ed25519.Verify(k.ed25519, []byte(input), sig) {
			return "it is not the Ed25519 signature of the header and payload"
		}
		return ""
	}
	if a.kind == kindHMAC {
		mac := hmac.New(a.hash.New, k.secret)
		mac.Write([]byte(input))
		if !hmac.Equal(mac.Sum(nil), sig) { // constant time
			return "the HMAC differs (another secret, or a changed header or payload)"
		}
		return ""
	}
	h := a.hash.New()
	h.Write([]byte(input))
	digest := h.Sum(nil)
	switch a.kind {
	case kindRSA:
		var err error
		if a.pss {
			err = rsa.VerifyPSS(k.rsa, a.hash, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash})
		} else {
			err = rsa.VerifyPKCS1v15(k.rsa, a.hash, digest, sig)
		}
		if err != nil {
			return "it is not the RSA signature of the header and payload"
		}
	case kindEC:
		size := (k.ec.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size {
			return fmt.Sprintf("a JWS signature on %s is r||s, %d bytes; this one has %d (an ASN.1 DER signature is not the JWS form)", k.ec.Curve.Params().Name, 2*size, len(sig))
		}
		r, s := new(big.Int).SetBytes(sig[:size]), new(big.Int).SetBytes(sig[size:])
		if !ecdsa.Verify(k.ec, digest, r, s) {
			return "it is not the ECDSA signature of the header and payload"
		}
	}
	return ""
}
