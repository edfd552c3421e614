package server

import (
	"net/http"
	"strings"
	"time"

	"secutil/tools/codec"
	"secutil/tools/jwt"
)

type base64Request struct {
	Text   string `json:"text" required:"true"`
	Option string `json:"option"`
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
	Answer string  `json:"answer"`
	Error  *string `json:"error"`
}

func handleBase64(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[base64Request](w, r)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(strings.TrimSpace(req.Option), "encode") {
		return base64Response{Answer: codec.Base64Encode(req.Text)}, nil
	}
	out, err := codec.Base64Decode(req.Text)
	if err != nil {
		return nil, err
	}
	return base64Response{Answer: out}, nil
}

type randomKeyResponse struct {
	RandomKey string `json:"random_key"`
}

func handleGenerateRandomKey(_ http.ResponseWriter, _ *http.Request, _ *call) (any, error) {
	key, err := codec.RandomKey()
	if err != nil {
		return nil, err
	}
	return randomKeyResponse{RandomKey: key}, nil
}

type jwtRequest struct {
	Token string `json:"token"`
}

func (q *jwtRequest) check() error {
	return required("token", q.Token)
}

// jwtResponse: answer is the decoded token; error carries a warning (an
// expired token, alg "none") on a 200, as the OpenAPI document allows.
type jwtResponse struct {
	Answer string  `json:"answer"`
	Error  *string `json:"error"`
}

func handleJWTDecoder(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[jwtRequest](w, r)
	if err != nil {
		return nil, err
	}
	answer, warning, err := jwt.Decode(req.Token, time.Now())
	if err != nil {
		return nil, err
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
	Result string  `json:"result"`
	Error  *string `json:"error"` // always null on success
}

// handleJSON serves /json_format and /json_minify.
func handleJSON(transform func(string) (string, error)) utility {
	return func(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
		req, err := decode[jsonRequest](w, r)
		if err != nil {
			return nil, err
		}
		out, err := transform(req.Text)
		if err != nil {
			return nil, err
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
