package server

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"secutil/server/internal/schemagen"
	"secutil/tools/jwt"
)

// POST /jwt_decoder: a JWT decoded for reading, its signature not checked
// (/jwt_verify checks it).

type jwtRequest struct {
	Token string `json:"token" required:"check" aka:"jwt,bearer,access_token,id_token"`
}

func (q *jwtRequest) check() error {
	return required("token", q.Token)
}

// jwtResponse: answer is the decoded token and error its warnings (an
// expired token, alg "none") on a 200, as the seed had them; header,
// payload, signature and warnings give the same apart.
type jwtResponse struct {
	Answer    string     `json:"answer" required:"true" doc:"pretty JSON of header, payload and signature"`
	Error     *string    `json:"error" required:"true" doc:"null, or the warnings joined by \"; \""`
	Header    jsonObject `json:"header" required:"true" doc:"the header as the token holds it"`
	Payload   jsonObject `json:"payload" required:"true" doc:"the claims as the token holds them, in their order"`
	Signature string     `json:"signature" required:"true" doc:"the third part, in base64url, not verified"`
	Warnings  []string   `json:"warnings" required:"true" doc:"why the token should not be trusted, one sentence each: unsigned (alg none), expired, not valid yet, issued in the future; empty when none"`
}

func decodeJWT(_ context.Context, req jwtRequest) (jwtResponse, error) {
	d, err := jwt.Inspect(req.Token, time.Now())
	if err != nil {
		return jwtResponse{}, err
	}
	resp := jwtResponse{Answer: d.Answer, Header: jsonObject(d.Header), Payload: jsonObject(d.Payload),
		Signature: d.Signature, Warnings: nonNil(d.Warnings)}
	if len(d.Warnings) > 0 {
		warning := strings.Join(d.Warnings, "; ")
		resp.Error = &warning
	}
	return resp, nil
}

// jsonObject is a JSON object passed on as it was written.
type jsonObject json.RawMessage

func (o jsonObject) MarshalJSON() ([]byte, error) { return json.RawMessage(o).MarshalJSON() }

// String is the object indented, as a page shows it.
func (o jsonObject) String() string { return indentJSON(json.RawMessage(o)) }

func (jsonObject) JSONSchema() *schemagen.Object { return schemagen.NewObject("type", "object") }

// nonNil is list, or an empty list for nil, so JSON says [] rather than null.
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
