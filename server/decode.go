package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"secutil/tools/jsonfmt"
)

// Decoding a request: the bounds on bodies (one body, and all the bodies
// being read at once, their share per client and their pace), and reading
// a body into its request type as JSON or as a form. validate.go checks
// the fields.

// maxBodyBytes bounds every request body (docs/API.md); a request type
// whose JSON needs less says so (bodyLimiter).
const maxBodyBytes = 1 << 20

// bodyLimiter is a request type whose body is bounded below maxBodyBytes.
type bodyLimiter interface{ maxBody() int64 }

// bodyLimit is the largest body a request of type *T may have.
func bodyLimit[T any](v *T) int64 {
	if l, ok := any(v).(bodyLimiter); ok {
		return l.maxBody()
	}
	return maxBodyBytes
}

// BodyLimits bound the request bodies a server reads at once (Deps.Bodies),
// so that many concurrent bodies, unauthenticated ones too (most routes
// read the body before the credentials in it are checked), can neither
// take its memory nor keep other clients out.
type BodyLimits struct {
	// Budget is the bytes of request bodies held at once, counted as they
	// arrive (a Content-Length reserves nothing) and given back once the
	// body is decoded. A body that would pass it is answered 503 busy with
	// Retry-After: 1.
	Budget int64
	// Share is the most of Budget that one client (an IPv4 address or an
	// IPv6 /64) holds at once, and one account on the utilities, whose key
	// is checked before their body is read. 0: an eighth of Budget, and at
	// least the largest body (1 MiB).
	Share int64
	// MinRate, in bytes a second, is the pace a body must keep once Grace
	// has passed since the server began to read it: a body whose bytes so
	// far are fewer than MinRate times the time past Grace is cut with a
	// 400 (and its connection closed), so a client that trickles bytes
	// holds a connection and a handler for about Grace, not the server's
	// read timeout.
	MinRate int64
	Grace   time.Duration
}

// DefaultBodyLimits: 64 bodies of 1 MiB at once, 8 for any one client or
// account; the pace a 1 MiB body needs to arrive within the server's 30 s
// read timeout; a grace that outlasts a lost packet's first retransmission
// (1 s in TCP).
var DefaultBodyLimits = BodyLimits{Budget: 64 * maxBodyBytes, MinRate: 32 << 10, Grace: 2 * time.Second}

// orDefaults fills l's zero fields from DefaultBodyLimits.
func (l BodyLimits) orDefaults() BodyLimits {
	if l.Budget <= 0 {
		l.Budget = DefaultBodyLimits.Budget
	}
	if l.Share <= 0 {
		l.Share = max(l.Budget/8, maxBodyBytes)
	}
	if l.MinRate <= 0 {
		l.MinRate = DefaultBodyLimits.MinRate
	}
	if l.Grace <= 0 {
		l.Grace = DefaultBodyLimits.Grace
	}
	return l
}

// tooSlow is the error of a body cut for its pace.
func (l BodyLimits) tooSlow() error {
	return badRequest("the request body arrived slower than %g KiB a second after its first %v, and was cut: send it at once",
		float64(l.MinRate)/1024, l.Grace)
}

// A byteBudget counts bytes held at once: in all at most limit, and by any
// one client or account at most share. The server keeps one for request
// bodies and one for answers (respond.go).
type byteBudget struct {
	limit, share int64

	mu       sync.Mutex
	used     int64
	clients  map[string]int64 // bytes held by each client that holds any
	accounts map[int64]int64
}

func newByteBudget(limit, share int64) *byteBudget {
	return &byteBudget{limit: limit, share: share, clients: map[string]int64{}, accounts: map[int64]int64{}}
}

// A holder is who holds bytes of a budget: a client (clientKey) and, on
// the routes that authenticate one before holding anything, an account.
type holder struct {
	client  string
	account int64 // 0: none known
}

// A refusal is why a budget did not take bytes; refusedNone when it did.
type refusal uint8

const (
	refusedNone  refusal = iota
	refusedFull          // the budget's total
	refusedShare         // the holder's share
	refusedSlow          // a body below the pace (BodyLimits.MinRate)
)

// take reserves n bytes for h, or reserves nothing and says why.
func (b *byteBudget) take(h holder, n int64) refusal {
	if n == 0 {
		return refusedNone
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.clients[h.client]+n > b.share, h.account != 0 && b.accounts[h.account]+n > b.share:
		return refusedShare
	case b.used+n > b.limit:
		return refusedFull
	}
	b.used += n
	b.clients[h.client] += n
	if h.account != 0 {
		b.accounts[h.account] += n
	}
	return refusedNone
}

// give returns n bytes h took.
func (b *byteBudget) give(h holder, n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.clients[h.client] -= n; b.clients[h.client] == 0 {
		delete(b.clients, h.client)
	}
	if h.account != 0 {
		if b.accounts[h.account] -= n; b.accounts[h.account] == 0 {
			delete(b.accounts, h.account)
		}
	}
}

// inUse is the bytes held now.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// errBodiesBusy answers a body the server has no room to read now.
var errBodiesBusy = newError(codeBusy, "the server is reading too many request bodies at once, or too many of yours; retry in a second")

// clientBody is a request's body as every handler reads it (the middleware
// puts it in place). It counts the bytes in the server's body budget as
// they arrive, cuts a body that falls below BodyLimits.MinRate, and marks
// failures to read as the client's: a body cut short of its Content-Length
// or cut for its pace is a 400 for whichever handler reads it, not a 500.
type clientBody struct {
	io.ReadCloser
	s      *Server
	req    *http.Request // for its client, the holder of the body's bytes
	conn   readDeadliner // nil: a body no deadline can cut (not from a connection)
	header http.Header   // the answer's, for Retry-After

	owner    holder
	held     int64 // bytes taken from the budget, not given back yet
	received int64
	// call marks the body of a utility call (holdForCall): its bytes stay
	// counted until the call's answer is encoded, not only until it is
	// decoded, as the decoded request and the work on it are of its size.
	call bool

	// The pace. arrived is when the request reached its handler, start
	// when its body was first read; readLimit is where the server's read
	// timeout puts the connection's deadline (about), zero for none.
	arrived, start, readLimit time.Time
	pace                      *time.Timer
	due                       atomic.Int64 // paceDeadline, in Unix nanoseconds
	reading                   atomic.Bool  // the handler is waiting in Read

	mu       sync.Mutex // orders cutting against finishing
	finished bool
	cut      atomic.Bool // the pace's timer cut the body
}

// readDeadliner is what an http.ResponseWriter of net/http (HTTP/1 and
// HTTP/2) offers to bound the reading of the request.
type readDeadliner interface{ SetReadDeadline(time.Time) error }

func (b *clientBody) Read(p []byte) (int, error) {
	if b.start.IsZero() {
		b.begin()
	}
	b.reading.Store(true)
	n, err := b.ReadCloser.Read(p)
	b.reading.Store(false)
	if n > 0 && b.cut.Load() {
		b.uncut()
	}
	if n > 0 {
		if why := b.s.bodies.take(b.holder(), int64(n)); why != refusedNone {
			b.s.Metrics.budgetRefused(budgetBodies, why)
			b.header.Set("Retry-After", "1")
			b.closeAfter()
			return 0, errBodiesBusy
		}
		b.held += int64(n)
		b.received += int64(n)
		if b.pace != nil {
			due := b.paceDeadline()
			b.due.Store(due.UnixNano())
			b.pace.Reset(time.Until(due))
		}
	}
	switch {
	case err == nil:
		return n, nil
	case err == io.EOF:
		b.stopPace()
		return n, err
	case b.cut.Load():
		b.s.Metrics.budgetRefused(budgetBodies, refusedSlow)
		b.closeAfter()
		return n, b.s.errBodyTooSlow
	case errors.Is(err, io.ErrUnexpectedEOF):
		return n, badRequest("the request body ended before its Content-Length")
	default:
		return n, badRequest("reading the request body failed")
	}
}

// closeAfter has the connection closed after the answer to a body left
// unread: net/http would otherwise read up to 256 KiB more of it, at the
// client's pace, before sending the answer.
func (b *clientBody) closeAfter() { b.header.Set("Connection", "close") }

// begin starts the body's clock and, on a connection, the timer that
// cuts it when it falls below the pace.
func (b *clientBody) begin() {
	b.start = time.Now()
	if b.conn == nil {
		return
	}
	if srv, ok := b.req.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
		b.readLimit = b.arrived.Add(srv.ReadTimeout)
	}
	b.due.Store(b.paceDeadline().UnixNano())
	b.pace = time.AfterFunc(b.s.Bodies.Grace, b.cutForPace)
}

// paceDeadline is when the body falls below the pace unless more arrives:
// by then MinRate times the time past the grace is what it has sent.
func (b *clientBody) paceDeadline() time.Time {
	l := &b.s.Bodies
	return b.start.Add(l.Grace + time.Duration(float64(b.received)/float64(l.MinRate)*float64(time.Second)))
}

// cutForPace, the pace's timer, ends the handler's wait in Read with a
// deadline that has passed (the connection is closed after the answer).
// It only ever brings the deadline forward, so the server's own read
// timeout still holds. A handler that is not waiting in Read has been
// slow itself (a server short of CPU): it is looked at again a little
// later, and the pace cuts only a client that kept it waiting.
func (b *clientBody) cutForPace() {
	b.mu.Lock()
	defer b.mu.Unlock()
	early := time.Duration(b.due.Load() - time.Now().UnixNano())
	switch {
	case b.finished:
	case early > 0: // more arrived since the timer was set
		b.pace.Reset(early)
	case !b.reading.Load():
		b.pace.Reset(b.s.Bodies.Grace / 8)
	default:
		b.cut.Store(true)
		b.conn.SetReadDeadline(time.Now())
	}
}

// uncut undoes a cut that came as the client's bytes arrived (the Read it
// was meant for returned them): the deadline goes back to the server's
// read timeout.
func (b *clientBody) uncut() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cut.Store(false)
	b.conn.SetReadDeadline(b.readLimit)
}

// stopPace stops the pace's timer for good: the body has arrived, or the
// request is over. The server's reads on the connection after it (the
// next request, or watching for the client to hang up) are its own.
func (b *clientBody) stopPace() {
	b.mu.Lock()
	b.finished = true
	b.mu.Unlock()
	if b.pace != nil {
		b.pace.Stop()
	}
}

// holder is who holds the body's bytes: its client, and its account once
// holdForCall has named it.
func (b *clientBody) holder() holder {
	if b.owner.client == "" {
		b.owner.client = clientKey(b.req)
	}
	return b.owner
}

// release gives back what the body holds of the budget: decode calls it
// once the body is decoded (a utility once its answer is encoded), the
// middleware when the request ends.
func (b *clientBody) release() {
	b.s.bodies.give(b.owner, b.held)
	b.held = 0
}

// finish ends the body's part in the request: the middleware calls it
// when the handler has returned.
func (b *clientBody) finish() {
	b.stopPace()
	b.release()
}

// holdForCall names the account whose utility call reads the body of r,
// so that the account's share of the body budget bounds it too, and keeps
// the body's bytes counted until releaseBody: the utilities call it once
// the key is checked, before the body is read.
func holdForCall(r *http.Request, account int64) {
	if b, ok := r.Body.(*clientBody); ok && b.held == 0 {
		b.owner.account = account
		b.call = true
	}
}

// releaseBody gives back what r's body holds of the budget.
func releaseBody(r *http.Request) {
	if b, ok := r.Body.(*clientBody); ok {
		b.release()
	}
}

// releaseDecoded gives back what r's body holds of the budget once it is
// decoded, unless it is a utility call's (holdForCall).
func releaseDecoded(r *http.Request) {
	if b, ok := r.Body.(*clientBody); ok && !b.call {
		b.release()
	}
}

// bodySize is the bytes of r's body read so far, or the size it declares
// when it was not read through the server's clientBody (-1: unknown).
func bodySize(r *http.Request) int64 {
	if b, ok := r.Body.(*clientBody); ok {
		return b.received
	}
	return r.ContentLength
}

// A decoder reads an action's request from the exchange. Besides the body
// it may read what a route checks first, in the order the route's
// contract says (a session, a rate limit), and refuse the request.
type decoder[Q any] func(w http.ResponseWriter, r *http.Request) (Q, error)

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
	return decodeAs[T](w, r, false)
}

// decodeClosed is decode for a utility's request: a JSON key that is no
// field of T is a 400 that names it (refuseUnknownFields). A form's other
// fields are still ignored, for browsers send their buttons' names.
func decodeClosed[T any](w http.ResponseWriter, r *http.Request) (T, error) {
	return decodeAs[T](w, r, true)
}

func decodeAs[T any](w http.ResponseWriter, r *http.Request, closed bool) (T, error) {
	var v T
	return decodeWithin[T](w, r, bodyLimit(&v), closed)
}

// decodeWithin is decodeAs with a body limit the server sets rather than
// the request type.
func decodeWithin[T any](w http.ResponseWriter, r *http.Request, limit int64, closed bool) (T, error) {
	var v T
	if r.ContentLength > limit {
		// Refused unread: the length says it is too large.
		return v, &http.MaxBytesError{Limit: limit}
	}
	defer releaseDecoded(r) // what is decoded is copied out of the buffer
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
		if err := decodeJSON(body, &v, closed); err != nil {
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
func decodeJSON(body []byte, v any, closed bool) error {
	switch string(bytes.TrimSpace(body)) {
	case "":
		if _, optional := v.(optionalBody); optional {
			return nil
		}
		return badRequest("request body is empty; expected a JSON object")
	case "null": // json.Unmarshal leaves v as it is
		return badRequest("request body must be a JSON object, not null")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return jsonDecodeError(clientPath(err, v))
	}
	if closed {
		if err := refuseUnknownFields(body, reflect.TypeOf(v).Elem()); err != nil {
			return err
		}
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
		return badRequest("malformed JSON at byte %d: %s", syntax.Offset, jsonfmt.PlainSyntax(syntax.Error()))
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

// decodeForm maps form fields onto the JSON field names of v, each read as
// its field's JSON type (formJSON), so web forms and JSON clients share one
// request type.
func decodeForm(body []byte, v any) error {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return badRequest("malformed form body")
	}
	for name, values := range form {
		if !utf8.ValidString(name) || (len(values) > 0 && !utf8.ValidString(values[0])) {
			return badRequest("form field %q is not valid UTF-8", name)
		}
	}
	raw, err := formJSON(form, v)
	if err != nil {
		return err
	}
	return decodeJSON(raw, v, false)
}

// readForm reads a urlencoded body, bounded like every body.
func readForm(w http.ResponseWriter, r *http.Request) (url.Values, error) {
	defer releaseDecoded(r) // the form's values are copied out of raw
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, badRequest("malformed form body")
	}
	return form, nil
}
