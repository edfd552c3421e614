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
	if err := encodeJSON(buf, v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"internal error","code":"internal_error"}` + "\n")
	}
	writeEncoded(w, status, buf.Bytes())
}

// encodeJSON appends v's JSON and a newline to buf.
func encodeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeEncoded sends JSON already encoded.
func writeEncoded(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	w.Write(body)
}

var jsonContentType = []string{"application/json; charset=utf-8"}

// writeResult sends an action's result: JSON, as every answer is.
func writeResult(w http.ResponseWriter, v any) {
	writeJSON(w, http.StatusOK, v)
}

// DefaultAnswerBudget is the answer budget of a server not given one
// (Deps.AnswerBudget): 128 MiB, with which 500 clients reading the largest
// answer slowly (4.7 MB, base64 decoding a 1 MiB body) keep the server's
// peak resident memory under 1 GiB (TestPeakRSSOfSlowReaders).
const DefaultAnswerBudget = 128 << 20

// answerShare is the most of the answer budget one client or account
// holds: an eighth, and at least one answer of the largest size.
func answerShare(budget int64) int64 { return max(budget/8, largestAnswer) }

// largestAnswer bounds the largest answer a utility gives: base64 decoding
// a 1 MiB body of base64 into 768 KiB of text, each byte a control
// character written \u00XX in JSON, 4.7 MB (TestLargestAnswerFitsAShare).
const largestAnswer = 5 << 20

// errAnswersBusy refuses a call whose answer the server has no room to hold.
var errAnswersBusy = newError(codeBusy, "the server is sending too many large answers at once, or too many of yours; retry in a second")

// An answer is a utility's answer encoded before its call is counted, so
// that a server without room to hold it refuses the call uncounted. The
// answer stays in memory until the client has read it, for as long as the
// server's write timeout when it reads slowly: one larger than a pooled
// buffer holds its bytes in the server's answer budget until written.
type answer struct {
	buf   *bytes.Buffer
	s     *Server
	owner holder
	held  int64
}

// encodeAnswer encodes result into a as writeResult would send it. A
// large answer holds its bytes in the answer budget, for account and r's
// client: before encoding, what the body's size says it may need (so that
// a server with no room refuses the call before the work of encoding it),
// then what it takes. Without room: errAnswersBusy, with Retry-After.
func (s *Server) encodeAnswer(w http.ResponseWriter, r *http.Request, a *answer, result any, account int64) error {
	a.s = s
	if need := answerEstimate(bodySize(r)); need > maxPooledBuffer {
		a.owner = holder{client: clientKey(r), account: account}
		if err := a.hold(w, need); err != nil {
			return err
		}
	}
	buf := getBuffer()
	a.buf = buf
	if err := encodeJSON(buf, result); err != nil {
		return err
	}
	need := int64(buf.Cap())
	if need <= maxPooledBuffer {
		need = 0
	} else if a.held == 0 {
		a.owner = holder{client: clientKey(r), account: account}
	}
	return a.hold(w, need)
}

// answerEstimate is what an answer may need for a request body of the
// given size (-1: unknown): a byte of the body becomes at most 6 of the
// answer (base64 decoding into control characters, written \u00XX).
func answerEstimate(bodyBytes int64) int64 {
	if bodyBytes < 0 {
		return largestAnswer
	}
	return min(6*bodyBytes, largestAnswer)
}

// hold makes what a holds of the answer budget n bytes, or refuses and
// leaves it as it was (release gives it back).
func (a *answer) hold(w http.ResponseWriter, n int64) error {
	switch {
	case n < a.held:
		a.s.answers.give(a.owner, a.held-n)
	case n > a.held:
		if why := a.s.answers.take(a.owner, n-a.held); why != refusedNone {
			a.s.Metrics.budgetRefused(budgetAnswers, why)
			w.Header().Set("Retry-After", "1")
			return errAnswersBusy
		}
	}
	a.held = n
	return nil
}

// write sends the answer, 200.
func (a *answer) write(w http.ResponseWriter) {
	writeEncoded(w, http.StatusOK, a.buf.Bytes())
}

// release gives back the answer's buffer and what it held of the budget.
func (a *answer) release() {
	if a.buf != nil {
		putBuffer(a.buf)
		a.buf = nil
	}
	if a.held > 0 {
		a.s.answers.give(a.owner, a.held)
		a.held = 0
	}
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
