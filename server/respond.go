package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxBodyBytes bounds every request body (docs/API.md); a request type
// whose JSON needs less says so (bodyLimiter).
const maxBodyBytes = 1 << 20

// maxBodiesBytes bounds the request bodies a server holds at once while
// decoding them (bodyBudget): 64 bodies of maxBodyBytes. Past it, a
// request is answered 503 busy with Retry-After rather than read.
const maxBodiesBytes = 64 * maxBodyBytes

// bodyLimiter is a request type whose body is bounded below maxBodyBytes.
type bodyLimiter interface{ maxBody() int64 }

// bodyLimit is the largest body a request of type *T may have.
func bodyLimit[T any](v *T) int64 {
	if l, ok := any(v).(bodyLimiter); ok {
		return l.maxBody()
	}
	return maxBodyBytes
}

// bodyBudget counts the bytes of the request bodies being decoded, so that
// many concurrent large bodies (unauthenticated ones too: a body is read
// before its credentials are checked) cannot take the server's memory.
// The zero value is an empty budget.
type bodyBudget struct {
	mu   sync.Mutex
	used int64
}

// take reserves n bytes, reporting false when they would pass
// maxBodiesBytes.
func (b *bodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > maxBodiesBytes {
		return false
	}
	b.used += n
	return true
}

func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// errBodiesBusy answers a body the server has no room to read now.
var errBodiesBusy = newError(codeBusy, "the server is reading too many request bodies at once; retry in a second")

// reserveBody reserves in the server's body budget what reading r's body
// may hold, at most limit bytes: its Content-Length when it gives one. It
// returns the release, or errBodiesBusy with Retry-After set on w.
func reserveBody(w http.ResponseWriter, r *http.Request, limit int64) (release func(), err error) {
	body, ok := r.Body.(*clientBody)
	if !ok || body.budget == nil {
		return func() {}, nil
	}
	n := limit
	if r.ContentLength >= 0 && r.ContentLength < limit {
		n = r.ContentLength + 1 // +1: the read that finds the end
	}
	if !body.budget.take(n) {
		w.Header().Set("Retry-After", "1")
		return nil, errBodiesBusy
	}
	return func() { body.budget.give(n) }, nil
}

// apiError is an error with the code (and so the status) the client should
// see. Its message is written for a person and never contains a secret.
type apiError struct {
	code  *errorCode
	msg   string
	field string // the required field a missing_field error names
}

func (e *apiError) Error() string { return e.msg }

func (e *apiError) status() int { return e.code.Status }

func newError(code *errorCode, format string, args ...any) *apiError {
	// Without arguments the message is used as written: most package-level
	// errors are such, and formatting them at init cost every command's
	// start (secutil version included) a few dozen fresh memory pages.
	if len(args) == 0 {
		return &apiError{code: code, msg: format}
	}
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *apiError {
	return newError(codeInvalidRequest, format, args...)
}

var (
	errUnauthorized  = newError(codeUnauthorized, "missing or invalid API key: send it in the X-API-Key header")
	errLoginRequired = newError(codeLoginRequired, "login required")
	errInternal      = newError(codeInternal, "internal error")
)

// errorBody is the JSON of every error; for the response types that carry
// their own "error" field (base64, jwt, crypto, json) it is that same shape.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

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

// plainText is a handler result sent as text/plain rather than JSON.
type plainText string

func writeResult(w http.ResponseWriter, v any) {
	if t, ok := v.(plainText); ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, string(t)+"\n")
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// A decoder reads an action's request from the exchange. Besides the body
// it may read what a route checks first, in the order the route's
// contract says (a session, a rate limit), and refuse the request.
type decoder[Q any] func(w http.ResponseWriter, r *http.Request) (Q, error)

// runAction is the core every adapter shares: it decodes the request, runs
// act with the exchange in its context (exchangeOf), and writes what act
// asked of the answer (cookies, headers), whether it succeeded or not. The
// adapter then encodes the response or the error.
func runAction[Q, R any](s *Server, w http.ResponseWriter, r *http.Request, decode decoder[Q], act action[Q, R]) (Q, R, error) {
	ex := s.newExchange(r)
	r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))
	var res R
	req, err := decode(w, r)
	if err == nil {
		res, err = act(r.Context(), req)
	}
	ex.writeTo(w)
	return req, res, err
}

// An exchange is what a route's action may know of its HTTP exchange, and
// what it asks of the answer. The adapter fills the first part before the
// call and writes the second after it; the action, which never sees the
// http.ResponseWriter or the *http.Request, finds it with exchangeOf(ctx)
// (as a utility's action finds its caller with callOf).
type exchange struct {
	clientIP  string // the client's address (clientIP), for the audit log
	clientKey string // what the per-client limiters count (clientKey)
	bearer    bool   // the request came with an Authorization: Bearer token
	session   string // the auth_session cookie's token, "" for none
	device    string // the device cookie (handlers_account.go), "" for none
	https     bool   // the client reached the server by HTTPS (isHTTPS)
	origin    string // the scheme and host the client used (requestOrigin)
	next      string // the ?next= of the page a login form was on

	// What the action asks of the answer, success or error.
	header  http.Header
	cookies []*http.Cookie
}

type exchangeKey struct{}

// exchangeOf is the exchange a route's action runs for.
func exchangeOf(ctx context.Context) *exchange { return ctx.Value(exchangeKey{}).(*exchange) }

func (s *Server) newExchange(r *http.Request) *exchange {
	ex := &exchange{
		clientIP: clientIP(r), clientKey: clientKey(r),
		bearer: strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "),
		https:  s.isHTTPS(r), origin: s.requestOrigin(r),
		next: r.URL.Query().Get("next"), header: http.Header{},
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		ex.session = c.Value
	}
	if c, err := r.Cookie(deviceCookie); err == nil {
		ex.device = c.Value
	}
	return ex
}

// Header is where the action puts headers of the answer (Retry-After).
func (ex *exchange) Header() http.Header { return ex.header }

func (ex *exchange) setCookie(c *http.Cookie) { ex.cookies = append(ex.cookies, c) }

// writeTo puts the headers and cookies the action asked for on the answer.
func (ex *exchange) writeTo(w http.ResponseWriter) {
	h := w.Header()
	for name, values := range ex.header {
		h[name] = values
	}
	for _, c := range ex.cookies {
		http.SetCookie(w, c)
	}
}

// handleJSON serves an action to JSON clients: the adapter decodes Q, runs
// act, and encodes its R (or plainText) or its error.
func handleJSON[Q, R any](s *Server, act action[Q, R]) http.Handler {
	return handleJSONFrom(s, decodeRequest[Q], act)
}

// handleJSONFrom is handleJSON for a route whose request is read by a
// decoder of its own.
func handleJSONFrom[Q, R any](s *Server, decode decoder[Q], act action[Q, R]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, res, err := runAction(s, w, r, decode, act)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeResult(w, res)
	})
}

// decodeRequest is decode, except that a noRequest reads no body.
func decodeRequest[Q any](w http.ResponseWriter, r *http.Request) (Q, error) {
	var req Q
	if _, bodiless := any(req).(noRequest); bodiless {
		return req, nil
	}
	return decode[Q](w, r)
}

// checker is implemented by request types that have required fields or
// bounds; decode calls it after unmarshalling.
type checker interface{ check() error }

// decode reads a JSON object (or, for web forms, a urlencoded form) into T.
// Unknown fields are ignored; malformed input, a wrong type or a missing
// required field is a 400 that says which.
func decode[T any](w http.ResponseWriter, r *http.Request) (T, error) {
	var v T
	limit := bodyLimit(&v)
	if r.ContentLength > limit {
		// Refused unread: the length says it is too large.
		return v, &http.MaxBytesError{Limit: limit}
	}
	release, err := reserveBody(w, r, limit)
	if err != nil {
		return v, err
	}
	defer release()
	buf := getBuffer()
	defer putBuffer(buf)
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit)); err != nil {
		return v, err
	}
	body := buf.Bytes()
	// encoding/json would silently turn invalid UTF-8 into U+FFFD; a
	// password or text changed behind the caller's back is worse than a 400.
	if !utf8.Valid(body) {
		return v, badRequest("request body is not valid UTF-8")
	}
	mt := mediaType(r.Header.Get("Content-Type"))
	switch {
	case mt == "application/x-www-form-urlencoded" && !looksLikeJSON(body):
		if err := decodeForm(body, &v); err != nil {
			return v, err
		}
	// curl -d sends JSON labelled as a form; serve it rather than puzzle the user.
	case mt == "" || mt == "application/json" || mt == "text/json" || mt == "application/x-www-form-urlencoded":
		if err := decodeJSON(body, &v); err != nil {
			return v, nameMisspelling(body, err)
		}
		return v, nameMisspelling(body, check(&v))
	default:
		return v, newError(codeUnsupportedMediaType, "Content-Type must be application/json")
	}
	return v, check(&v)
}

// check runs v's own checks, if its type has any.
func check(v any) error {
	if c, ok := v.(checker); ok {
		return c.check()
	}
	return nil
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

// mediaType is the lower-cased type of a Content-Type header without its
// parameters (a cheaper mime.ParseMediaType for the hot path).
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

func looksLikeJSON(body []byte) bool {
	trimmed := bytes.TrimSpace(body)
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// decodeJSON decodes a whole body holding one JSON value. json.Unmarshal
// reads the body in place (a json.Decoder would copy it into buffers of its
// own) and refuses data after the value.
func decodeJSON(body []byte, v any) error {
	switch string(bytes.TrimSpace(body)) {
	case "":
		return badRequest("request body is empty; expected a JSON object")
	case "null": // json.Unmarshal leaves v as it is
		return badRequest("request body must be a JSON object, not null")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return jsonDecodeError(clientPath(err, v))
	}
	return checkPresent(body, v)
}

// jsonDecodeError explains an error of json.Unmarshal. Its syntax errors
// for a cut-off body and for data after the value are told apart by their
// text, which encoding/json has kept since Go 1.0.
func jsonDecodeError(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax) && syntax.Error() == "unexpected end of JSON input":
		return badRequest("request body is truncated JSON")
	case errors.As(err, &syntax) && strings.HasSuffix(syntax.Error(), "after top-level value"):
		return badRequest("request body must hold a single JSON object; found more data after it")
	case errors.As(err, &syntax):
		return badRequest("malformed JSON at byte %d: %s", syntax.Offset, syntax.Error())
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badRequest("request body must be a JSON object, not %s", typ.Value)
		}
		return newError(codeInvalidField, "field %q must be a %s, not %s", typ.Field, jsonTypeName(typ.Type.String()), typ.Value)
	default:
		return badRequest("malformed JSON: %v", err)
	}
}

func jsonTypeName(goType string) string {
	switch {
	case goType == "string" || goType == "*string":
		return "string"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "number"
	case goType == "bool":
		return "boolean"
	case strings.HasPrefix(goType, "[]"):
		return "array"
	default:
		return "object"
	}
}

// decodeForm maps form fields onto the JSON field names of v, so web forms
// and JSON clients share one request type.
func decodeForm(body []byte, v any) error {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return badRequest("malformed form body")
	}
	fields := map[string]string{}
	for name, values := range form {
		if !utf8.ValidString(name) || (len(values) > 0 && !utf8.ValidString(values[0])) {
			return badRequest("form field %q is not valid UTF-8", name)
		}
		if len(values) > 0 {
			fields[name] = values[0]
		}
	}
	raw, _ := json.Marshal(fields)
	return decodeJSON(raw, v)
}

// required reports a required string field that is missing or blank.
func required(name, value string) error {
	if strings.TrimSpace(value) == "" {
		return missingField(name)
	}
	return nil
}
