package server

import "context"

// POST /json_format and /json_minify: JSON pretty-printed or minified, key
// order kept.

type jsonRequest struct {
	Text string `json:"text" required:"true" aka:"json,input,data"`
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
