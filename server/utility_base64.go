package server

import (
	"context"
	"strings"
	"time"

	"secutil/tools/codec"
	"secutil/tools/jwt"
)

type base64Request struct {
	Text   string `json:"text" required:"true"`
	Option string `json:"option" required:"check" enum:"encode,decode"`
}

func (q *base64Request) check() error {
	switch strings.ToLower(strings.TrimSpace(q.Option)) {
	case "encode", "decode":
		return nil
	case "":
		return newError(codeMissingField, "field \"option\" is required: encode or decode")
	default:
		return badRequest("field \"option\" must be encode or decode, not %q", truncate(q.Option, 40))
	}
}

// base64Response carries the API's nullable inline error; it is always null
// on success (failures use the shared error body, which has the same field).
type base64Response struct {
	Answer string  `json:"answer" required:"true"`
	Error  *string `json:"error" required:"true" type:"null" doc:"always null on success"`
}

func convertBase64(_ context.Context, req base64Request) (base64Response, error) {
	if strings.EqualFold(strings.TrimSpace(req.Option), "encode") {
		return base64Response{Answer: codec.Base64Encode(req.Text)}, nil
	}
	out, err := codec.Base64Decode(req.Text)
	if err != nil {
		return base64Response{}, err
	}
	return base64Response{Answer: out}, nil
}

type randomKeyResponse struct {
	RandomKey string `json:"random_key" doc:"64 hex characters (256 bits)"`
}

func generateRandomKey(context.Context, noRequest) (randomKeyResponse, error) {
	key, err := codec.RandomKey()
	if err != nil {
		return randomKeyResponse{}, err
	}
	return randomKeyResponse{RandomKey: key}, nil
}

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

type jsonRequest struct {
	Text string `json:"text" required:"true"`
}

type jsonResponse struct {
	Result string  `json:"result" required:"true"`
	Error  *string `json:"error" required:"true" type:"null" doc:"always null on success"`
}

// transformJSON is the action of /json_format and /json_minify.
func transformJSON(transform func(string) (string, error)) action[jsonRequest, jsonResponse] {
	return func(_ context.Context, req jsonRequest) (jsonResponse, error) {
		out, err := transform(req.Text)
		if err != nil {
			return jsonResponse{}, err
		}
		return jsonResponse{Result: out}, nil
	}
}

// truncate shortens user input quoted back in an error message.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
