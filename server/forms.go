package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// wantsHTML reports a browser's form post: a urlencoded body from a client
// that accepts HTML. curl -d sends the same Content-Type but accepts */*, so
// scripts keep getting JSON from the same routes.
func wantsHTML(r *http.Request) bool {
	return mediaType(r.Header.Get("Content-Type")) == "application/x-www-form-urlencoded" && strings.Contains(r.Header.Get("Accept"), "text/html")
}

// formResult is what a form's action answers on success: the page a
// browser goes to next, and the body a JSON client gets.
type formResult struct {
	next string
	body any
}

// formRequest is a request a page's form sends: prefill is what the page
// shows again after an error.
type formRequest interface{ prefill() formPrefill }

// formPrefill is what a form shown again keeps of what was sent: the email
// and the token of a setup or invite link, never a password.
type formPrefill struct{ email, token string }

// A form that sends nothing (logout) has nothing to keep.
func (noRequest) prefill() formPrefill { return formPrefill{} }

// formError answers a failed request. A browser gets the form's page again
// with the message, the error's status and what it sent but a password;
// anyone else gets the JSON error.
func (s *Server) formError(w http.ResponseWriter, r *http.Request, page string, sent formPrefill, err error) {
	if !wantsHTML(r) {
		s.writeError(w, r, err)
		return
	}
	ae := s.publicError(r, err)
	v := newView(s, r, noData{})
	v.Error = ae.msg
	v.Email, v.Token = sent.email, sent.token
	render(s, w, r, ae.status(), page, v)
}

// formDone answers a successful request: a browser is sent on to next with
// 303 See Other (so reloading does not post again); anyone else gets body.
func formDone(w http.ResponseWriter, r *http.Request, next string, body any) {
	if wantsHTML(r) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// withEmail is a page path whose form gets email prefilled.
func withEmail(page, email string) string {
	return page + "?" + url.Values{"email": {strings.TrimSpace(email)}}.Encode()
}

// formBool is a boolean field that JSON clients send as true or false and
// web forms as text: "true", "on" (a checked box) or "false". A checkbox
// that must default to true is followed by a hidden field of the same name
// with "false": the form's first value wins, and an unchecked box sends
// only the hidden one.
type formBool bool

func (b *formBool) UnmarshalJSON(data []byte) error {
	switch strings.Trim(string(data), `"`) {
	case "true", "on":
		*b = true
	case "false":
		*b = false
	default:
		// A type error, so that decoding names the field as the client sent
		// it (400 invalid_field), as for any other wrongly typed field.
		return &json.UnmarshalTypeError{Value: truncate(string(data), 20), Type: reflect.TypeFor[bool]()}
	}
	return nil
}

func formText(form url.Values, name string) string { return strings.TrimSpace(form.Get(name)) }

// formNumber reads an optional whole-number field; empty is nil.
func formNumber(form url.Values, name string) (*int64, error) {
	text := formText(form, name)
	if text == "" {
		return nil, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return nil, badRequest("field %q must be a whole number", name)
	}
	return &n, nil
}
