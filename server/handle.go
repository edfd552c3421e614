package server

import (
	"context"
	"net/http"
	"reflect"
)

// The adapters: each serves an action (func(ctx, Q) (R, error)) as an
// http.Handler, and they differ only in how they decode the request and
// encode the answer. routes.go's header is their table. The utilities'
// two (handleMetered, handleUtilityForm) run a call through runMetered;
// every other one through runAction.

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

// handleJSON serves an action to JSON clients: the adapter decodes Q, runs
// act, and encodes its R or its error.
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

// handleMetered serves a utility as JSON, the answer of runMetered or its
// error, to the callers authenticate accepts. The caller's account is
// known before the body is read, and bounds its share of the body budget
// too; the body's bytes stay in that budget until the answer is encoded,
// and the answer is encoded, and held in the answer budget, before the
// call is counted (answer).
func (s *Server) handleMetered(authenticate func(*http.Request) (*caller, error), run runner) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ans answer
		defer ans.release()
		_, err := s.runMetered(w, r, authenticate, func(w http.ResponseWriter, r *http.Request, c *call) (any, error) {
			holdForCall(r, c.account.ID)
			defer releaseBody(r)
			result, err := run(w, r, c)
			if err != nil {
				return nil, err
			}
			return nil, s.encodeAnswer(w, r, &ans, result, c.account.ID)
		})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ans.write(w)
	})
}

// handleAdminList serves one paginated admin list.
func handleAdminList[T any](s *Server, list func(ctx context.Context, limit, offset int) ([]T, error)) http.Handler {
	return handleJSONFrom(s, decodePage, func(ctx context.Context, req pageRequest) (listResponse[T], error) {
		limit := defaultPageLimit
		if req.Limit != nil {
			limit = *req.Limit
		}
		items, err := list(ctx, limit, req.Offset)
		if err != nil {
			return listResponse[T]{}, err
		}
		return listResponse[T]{Items: items, Limit: limit, Offset: req.Offset}, nil
	})
}

// handleForm serves a route that a page's form and JSON clients share:
// decode the request into Q and run act. A browser is sent on to the
// result's next page, or shown page again with the error; anyone else
// gets JSON.
func handleForm[Q formRequest](s *Server, page string, act action[Q, formResult]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, res, err := runAction(s, w, r, decodeRequest[Q], act)
		if err != nil {
			s.formError(w, r, page, req.prefill(), err)
			return
		}
		formDone(w, r, res.next, res.body)
	})
}

// handleSessionForm serves a form for the session's account (the Account
// page's, the dashboard's plan cards) to browsers and JSON clients: the
// adapter authenticates the session, decodes Q and runs act. A browser is
// sent on to the result's page, or given fail's answer to the error (its
// page again with the error, or the login page without a session); anyone
// else gets JSON.
func handleSessionForm[Q any](s *Server, fail func(http.ResponseWriter, *http.Request, error), act action[sessionRequest[Q], formResult]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, res, err := runAction(s, w, r, decodeSession[Q](s), act)
		switch {
		case err == nil:
			formDone(w, r, res.next, res.body)
		case !wantsHTML(r) || clientGone(r):
			s.writeError(w, r, err)
		default:
			fail(w, r, err)
		}
	})
}

// handleDashboardForm serves a form of the dashboard for the logged-in
// account (a browser without a session goes to /login): the adapter
// decodes Q and act answers on success with the page to go to (303, so a
// reload posts nothing again); its error is shown on the dashboard with
// its status.
func handleDashboardForm[Q any](s *Server, act action[sessionRequest[Q], string]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := s.dashboardAccount(w, r)
		if !ok {
			return
		}
		readRequest := func(w http.ResponseWriter, r *http.Request) (sessionRequest[Q], error) {
			body, err := decode[Q](w, r)
			return sessionRequest[Q]{account: a, body: body}, err
		}
		_, next, err := runAction(s, w, r, readRequest, act)
		switch {
		case err != nil && clientGone(r):
			s.writeError(w, r, err)
		case err != nil:
			s.renderDashboard(w, r, a, err)
		default:
			http.Redirect(w, r, next, http.StatusSeeOther)
		}
	})
}

// clientGone reports whether the client has hung up: its request's
// context ends when it closes its side of the connection, cutting its body
// short, or when its body is cut for arriving too slowly. A page read from
// the database for it would then fail on the context, a 503 "busy" that
// hides the request's own error; that error is the answer instead, as
// JSON.
func clientGone(r *http.Request) bool { return r.Context().Err() != nil }

// handleAdminForm serves a form of the admin page with the action of the
// /boss/ JSON route it mirrors, so the checks and the audit stay in one
// place: decode reads the form into that route's request (decodeAdminForm).
// Either way the answer is 303 to the admin page (POST/redirect/GET: a
// reload posts nothing again): on success with the notice done, and what
// the result leaves for the page (flashResult); on a refusal with the
// error, carried in the flash cookie. routes.go guards it (adminRoute).
func handleAdminForm[Q, R any](s *Server, done string, decode decoder[Q], act action[Q, R]) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, res, err := runAction(s, w, r, decode, act)
		if err != nil {
			s.redirectToAdmin(w, r, "", adminFlash{Error: s.publicError(r, err).msg})
			return
		}
		var flash adminFlash
		if f, ok := any(res).(flashResult); ok {
			flash = f.flash()
		}
		s.redirectToAdmin(w, r, done, flash)
	})
}

// handleUtilityForm serves utility u at the root, for the utilities page:
// the session cookie works as well as a key, and a call counts either way.
// A browser's form post gets the page back with the answer in u's panel
// (answerOnUtilityPage); anyone else gets the API's JSON.
func (s *Server) handleUtilityForm(u utility) http.Handler {
	run := u.bind(s)
	return s.answerOnUtilityPage(u.panel, u.request, s.handleMetered(s.anyCaller, run), func(w http.ResponseWriter, r *http.Request) (any, error) {
		return s.runMetered(w, r, s.anyCaller, run)
	})
}

// handlePanelForm serves an action that a panel of the utilities page
// calls and that is no utility (the strength meter's preview): not
// metered. A browser's form post gets the page back with the answer in
// panel (answerOnUtilityPage); anyone else gets JSON. A form post carries
// the fields of body, the type decode reads.
func handlePanelForm[Q, R any](s *Server, panel string, body reflect.Type, decode decoder[Q], act action[Q, R]) http.Handler {
	return s.answerOnUtilityPage(panel, body, handleJSONFrom(s, decode, act), func(w http.ResponseWriter, r *http.Request) (any, error) {
		_, res, err := runAction(s, w, r, decode, act)
		return res, err
	})
}

// answerOnUtilityPage serves a browser's form post (Accept: text/html)
// with the utilities page, run's answer or error in panel, never JSON (a
// hash lookup asked for as CSV gets the file), and anyone else with
// asJSON. request is the type the form is sent on to run as.
func (s *Server) answerOnUtilityPage(panel string, request reflect.Type, asJSON http.Handler, run func(http.ResponseWriter, *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !wantsToolPage(r) {
			asJSON.ServeHTTP(w, r)
			return
		}
		form, err := s.resendForm(w, r, panel, request)
		var result any
		if err == nil {
			result, err = run(w, r)
		}
		if out, ok := result.(hashLookupOutput); ok && err == nil && form.Get("format") == "csv" {
			writeLookupCSV(w, out)
			return
		}
		s.renderUtilityPage(w, r, panel, form, result, err)
	})
}
