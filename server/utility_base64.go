package server

import (
	"context"
	"strings"

	"secutil/tools/codec"
)

// POST /base64: base64 encoding and decoding.

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
