package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
)

// Encoding the answer: JSON, plain text, and errors as JSON.

// writeError is the one place errors become responses. Anything that is not
// an *apiError is an internal error: the client sees "internal error" and
// the detail goes to the log.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	ae := s.publicError(r, err)
	if ae.code == codeDatabaseUnavailable {
		w.Header().Set("Retry-After", databaseRetryAfter)
	}
	writeJSON(w, ae.status(), errorBody{Error: ae.msg, Code: ae.code.Name})
}

// publicError is what the client may see of err: an *apiError as it is, a
// tool's error by the toolErrors table, and anything else as "internal
// error", with the detail in the log.
func (s *Server) publicError(r *http.Request, err error) *apiError {
	var ae *apiError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &tooBig):
		return newError(codeRequestTooLarge, "request body is larger than %d bytes", tooBig.Limit)
	}
	for _, row := range toolErrors {
		if row.match(err) {
			msg := row.msg
			if msg == "" {
				msg = err.Error()
			}
			return &apiError{code: row.code, msg: msg}
		}
	}
	s.Logger.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	return errInternal
}

// writeJSON renders v into a buffer first so an encoding failure can still
// become a clean 500 instead of half a body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := getBuffer()
	defer putBuffer(buf)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"internal error","code":"internal_error"}` + "\n")
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

var jsonContentType = []string{"application/json; charset=utf-8"}

// writeResult sends an action's result: JSON, as every answer is.
func writeResult(w http.ResponseWriter, v any) {
	writeJSON(w, http.StatusOK, v)
}

// buffers recycles request bodies and encoded responses between requests.
// Decoding copies every string and byte slice it keeps, and a response is
// copied out by Write, so nothing refers to a buffer once it is put back.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps the rare large body from pinning memory in the pool.
const maxPooledBuffer = 64 << 10

func getBuffer() *bytes.Buffer {
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		buffers.Put(buf)
	}
}

type statusResponse struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}
