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
	"unicode/utf8"

	"secutil/tools/jsonfmt"
)

// Decoding a request: the bounds on bodies (one body, and all the bodies
// being read at once), and reading a body into its request type as JSON or
// as a form. validate.go checks the fields.

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
