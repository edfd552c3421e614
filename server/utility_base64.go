package server

import (
	"context"
	"strings"

	"secutil/tools/codec"
)

// POST /base64: base64 encoding and decoding.

type base64Request struct {
	Text   string `json:"text" required:"true" aka:"input,data,value"`
	Option string `json:"option" required:"check" enum:"encode,decode" aka:"mode,direction,action"`
	Output string `json:"output" enum:"text,hex,base64url" aka:"format" doc:"decoding only: how the decoded bytes are written. text refuses bytes that are not UTF-8; hex (two lower-case digits a byte) and base64url (the URL-safe alphabet without padding) take any bytes. Absent: text when the bytes are UTF-8, hex when they are not."`
}

func (q *base64Request) check() error {
	switch strings.ToLower(strings.TrimSpace(q.Option)) {
	case "encode":
		if q.Output != "" {
			return badRequest("field \"output\" is for decoding; an encoding is written in base64")
		}
		return nil
	case "decode": // codec.Base64DecodeTo refuses an output it cannot write
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
	Output string  `json:"output,omitempty" enum:"text,hex,base64url" doc:"decoding only: how answer writes the decoded bytes"`
}

func convertBase64(_ context.Context, req base64Request) (base64Response, error) {
	if strings.EqualFold(strings.TrimSpace(req.Option), "encode") {
		return base64Response{Answer: codec.Base64Encode(req.Text)}, nil
	}
	out, err := codec.Base64DecodeTo(req.Text, req.Output)
	if err != nil {
		return base64Response{}, err
	}
	return base64Response{Answer: out.Answer, Output: out.Output}, nil
}
