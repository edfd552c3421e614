package server

import (
	"context"
	"time"

	"secutil/tools/jwt"
)

// POST /jwt_verify: is a JWT valid under a key, and if not, why.

type jwtVerifyRequest struct {
	Token string `json:"token" required:"check" aka:"jwt,bearer,access_token,id_token"`
	Key   string `json:"key" required:"check" aka:"secret,public_key,jwks,jwk,pem" doc:"an HMAC secret (its text, byte for byte), a PEM public key or certificate (RSA, EC, Ed25519), a JWK, or a JWKS document; at most 64 KiB"`
}

func (q *jwtVerifyRequest) check() error {
	if err := required("token", q.Token); err != nil {
		return err
	}
	if q.Key == "" {
		return missingField("key")
	}
	return nil
}

type jwtVerifyResponse struct {
	Valid          bool       `json:"valid" required:"true"`
	Reason         string     `json:"reason,omitempty" enum:"alg_none,unsupported_algorithm,critical_header,no_matching_key,algorithm_key_mismatch,weak_key,bad_signature,malformed_claim,expired,not_yet_valid,issued_in_future" doc:"why the token is not valid (absent when it is): the first that applies, in the order listed"`
	Message        string     `json:"message" required:"true" doc:"a sentence: why the token is not valid, or what was checked"`
	Algorithm      string     `json:"algorithm" required:"true" doc:"the header's alg"`
	KeyID          string     `json:"key_id,omitempty" doc:"the kid of the JWKS key used"`
	KeyDescription string     `json:"key_description,omitempty" doc:"the key used, in words (an RSA public key of 2048 bits)"`
	Warnings       []string   `json:"warnings" required:"true" doc:"doubts about a token or key that verified: a short HMAC secret, no exp, a key carried in the header"`
	Header         jsonObject `json:"header" required:"true" doc:"the header as the token holds it"`
	Payload        jsonObject `json:"payload" required:"true" doc:"the claims as the token holds them, in their order"`
}

// verifyJWT checks a token's signature and its time claims against a key.
// A token that is not valid is a 200 with the reason; a token or a key
// that cannot be read is a 400.
func verifyJWT(_ context.Context, req jwtVerifyRequest) (jwtVerifyResponse, error) {
	v, err := jwt.Verify(req.Token, req.Key, time.Now())
	if err != nil {
		return jwtVerifyResponse{}, err
	}
	return jwtVerifyResponse{
		Valid: v.Valid, Reason: string(v.Reason), Message: v.Message,
		Algorithm: v.Algorithm, KeyID: v.KeyID, KeyDescription: v.Key,
		Warnings: nonNil(v.Warnings), Header: jsonObject(v.Header), Payload: jsonObject(v.Payload),
	}, nil
}
