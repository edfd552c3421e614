package server

import (
	"context"

	"secutil/tools/jsonfmt"
)

// POST /json_format and /json_minify: JSON pretty-printed or minified, key
// order kept.

type jsonRequest struct {
	Text string `json:"text" required:"true" aka:"json,input,data"`
}

// check refuses a text larger than the JSON tools take, in those terms
// (jsonfmt would call it invalid JSON at line 1, column 1).
func (q *jsonRequest) check() error {
	if n := len(q.Text); n > jsonfmt.MaxInputBytes {
		return newError(codeInvalidJSON, "field \"text\" is %s; the JSON tools take at most %s", sizeInWords(n), sizeInWords(jsonfmt.MaxInputBytes))
	}
	return nil
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
