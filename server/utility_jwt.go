package server

import (
	"context"
	"time"

	"secutil/tools/jwt"
)

// POST /jwt_decoder: a JWT decoded for reading, its signature not checked.

type jwtRequest struct {
	Token string `json:"token" required:"check"`
}

func (q *jwtRequest) check() error {
	return required("token", q.Token)
}

// jwtResponse: answer is the decoded token; error carries a warning (an
// expired token, alg "none") on a 200, as the OpenAPI document allows.
type jwtResponse struct {
	Answer string  `json:"answer" required:"true" doc:"pretty JSON of header, payload and signature"`
	Error  *string `json:"error" required:"true" doc:"null, or a warning such as an expired token or alg none"`
}

func decodeJWT(_ context.Context, req jwtRequest) (jwtResponse, error) {
	answer, warning, err := jwt.Decode(req.Token, time.Now())
	if err != nil {
		return jwtResponse{}, err
	}
	resp := jwtResponse{Answer: answer}
	if warning != "" {
		resp.Error = &warning
	}
	return resp, nil
}
