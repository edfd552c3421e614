package server

import (
	"net/http"
	"reflect"
	"strings"
)

// The shape of every route: an adapter decodes the request into its type,
// runs the action, and encodes the action's response or error. Every
// action is an action (utilities.go): func(ctx, req) (resp, error); none
// sees the http.ResponseWriter or the *http.Request. A utility's action
// finds its caller with callOf(ctx). Any other route's action gets its
// caller in its request when the decoder authenticated one (keyRequest,
// sessionRequest), finds the rest it needs of the exchange (client
// address, session token, scheme) with exchangeOf(ctx) (exchange.go), and
// asks for cookies and headers through it.
//
// The adapters, all in handle.go, differ only in how they decode and
// encode:
//
//	handleMetered        a utility under /api: a key, the account's cap, the call counted; JSON
//	handleJSON           JSON in, JSON out
//	handleJSONFrom       handleJSON with a decoder of the route's own (a key, a session, a limit)
//	handleAdminList      a paginated /boss/ list: handleJSONFrom with decodePage
//	handleForm           a page's form or JSON: a browser goes on (303) or sees the form again with the error
//	handleSessionForm    a form for the session's account: a browser goes on, or sees its page again with the error
//	handleDashboardForm  a form of the dashboard: 303 on, or the dashboard again with the error
//	handleAdminForm      a form of the admin page: 303 to it, the notice or the error in the flash cookie
//	handleUtilityForm    a utility at the root: a browser gets the utilities page with the answer, others JSON
//	handlePanelForm      handleUtilityForm for a panel's action that is no utility (not metered)
//
// A utility's two (handleMetered, handleUtilityForm) run its call through
// runMetered, every other one through runAction. Every administrator's
// route is registered through adminRoute, which guards it.
//
// Names: a function named handleX returns an http.Handler; a decoder is
// named decodeX; an action is named for what it does (convertBase64,
// login), never handleX.

// apiScopes are the two prefixes under which every API route is served
// (the OpenAPI document's servers).
var apiScopes = []string{"/api", "/api/v1"}

// apiRoute is one POST route of the API, relative to a scope.
type apiRoute struct {
	path    string
	handler http.Handler
}

// apiRoutes is the table of API routes: the account routes, which
// authenticate themselves, the public hash lookup, and every utility
// (utilities.go), which needs a key and is metered.
func (s *Server) apiRoutes() []apiRoute {
	routes := []apiRoute{
		{path: "/get_api_key", handler: handleJSON(s, s.getAPIKey)},
		{path: "/new_api_key", handler: handleJSONFrom(s, s.decodeKey, s.newAPIKey)},
		{path: "/regenerate", handler: handleJSONFrom(s, decodeSession[noRequest](s), s.regenerate)},
		{path: "/user_info", handler: handleJSONFrom(s, s.decodeKey, s.userInfo)},
		// Public: no key, not metered, limited per IP.
		{path: "/hash_lookup_site", handler: handleJSONFrom(s, s.decodePublicLookup, s.lookupHashes)},
	}
	for _, u := range utilities {
		routes = append(routes, apiRoute{path: u.path, handler: s.handleMetered(s.keyCaller, u.bind(s))})
	}
	return routes
}

// router is where routes are registered: the server's http.ServeMux, or
// a test's list of every pattern (held to the OpenAPI document).
type router interface {
	Handle(pattern string, handler http.Handler)
}

func (s *Server) routes(mux router) {
	routes := s.apiRoutes()
	for _, scope := range apiScopes {
		for _, rt := range routes {
			mux.Handle("POST "+scope+rt.path, rt.handler)
		}
	}

	mux.Handle("GET /health", s.handleHealth())
	mux.Handle("GET /robots", handleRobots())
	mux.Handle("GET /robots.txt", handleRobots())
	mux.Handle("GET /range/{prefix}", s.handleRange())
	mux.Handle("OPTIONS /range/{prefix}", s.handleRangePreflight())
	mux.Handle("GET /metrics", s.handleMetrics())

	// Account forms: a browser's form post gets a page, a JSON client JSON.
	mux.Handle("POST /login", handleForm(s, "login", s.login))
	mux.Handle("POST /register", handleForm(s, "register", s.register))
	mux.Handle("POST /setup", handleForm(s, "setup", s.setup))
	mux.Handle("POST /register/verify", handleForm(s, "register_verify", s.verifyRegistration))
	mux.Handle("POST /forgot-password", handleForm(s, "forgot", s.forgotPassword))
	mux.Handle("POST /forgot-password/verify", handleForm(s, "forgot_verify", s.resetPassword))
	mux.Handle("POST /logout", handleForm(s, "home", s.logout))

	// Every utility again at the root, for the utilities page
	// (utilities_page.go): the session cookie works as well as a key,
	// calls count toward usage, and a browser's form post gets the page back
	// with the answer in place.
	for _, u := range utilities {
		mux.Handle("POST "+u.path, s.handleUtilityForm(u))
	}
	// The strength meter's preview while typing: free, limited per account.
	mux.Handle("POST /password_check/preview", handlePanelForm(s, "strength", reflect.TypeFor[passwordRequest](), s.decodePreview(), s.previewStrength))

	// Web pages (Deps.Assets: templates/ and static/).
	mux.Handle("GET /{$}", s.handlePage("home"))
	mux.Handle("GET /static/{name}", s.handleStatic())
	mux.Handle("GET /favicon.ico", s.handleFavicon())
	mux.Handle("GET /login", s.handleGuestPage("login"))
	mux.Handle("GET /register", s.handleRegisterPage())
	mux.Handle("GET /setup", s.handleSetupPage())
	mux.Handle("GET /register/verify", s.handlePage("register_verify"))
	mux.Handle("GET /forgot-password", s.handlePage("forgot"))
	mux.Handle("GET /forgot-password/verify", s.handlePage("forgot_verify"))
	mux.Handle("GET /tools", s.handleUtilityPage())
	mux.Handle("GET /dashboard", s.handleDashboard())
	mux.Handle("POST /dashboard/keys", handleDashboardForm(s, s.issueFromDashboard(s.createKey)))
	mux.Handle("POST /dashboard/keys/rotate", handleDashboardForm(s, s.issueFromDashboard(s.rotateKey)))
	mux.Handle("POST /dashboard/keys/revoke", handleDashboardForm(s, s.revokeFromDashboard))
	mux.Handle("GET /account", s.handleAccountPage())
	mux.Handle("POST /account/password", handleSessionForm(s, s.accountFormFailure, s.changeOwnPassword))
	mux.Handle("POST /account/delete", handleSessionForm(s, s.accountFormFailure, s.deleteOwnAccount))
	mux.Handle("GET /api-docs", s.handleOpenAPI())
	mux.Handle("GET /docs", s.handleReference())
	mux.Handle("GET /docs/{$}", s.handleReference())
	for _, name := range docPages {
		mux.Handle("GET /docs/"+name, s.handlePage("docs/"+name))
	}
	mux.Handle("GET /docs/errors", s.handleErrorsPage())

	// Plans and payments (billing.go).
	mux.Handle("POST /switch_tier", handleSessionForm(s, s.planFormFailure, s.switchTier))
	mux.Handle("POST /billing/create_checkout_session", handleJSONFrom(s, decodeSession[planRequest](s), s.createCheckoutSession))
	mux.Handle("POST /billing/payments/webhook", handleJSONFrom(s, s.decodeWebhook, s.applyWebhook))

	s.adminRoutes(mux)
}

// adminRoutes are the administrators' routes: the /boss/ API (JSON, an
// admin session or the admin token) and the admin page with its forms,
// which run the actions of the /boss/ routes they mirror. Each is
// registered through adminRoute: none can be left unguarded.
func (s *Server) adminRoutes(mux router) {
	admin := func(pattern string, h http.Handler) { s.adminRoute(mux, pattern, h) }
	admin("POST /boss/payments/create_product", handleJSON(s, s.createProduct))
	admin("POST /boss/payments/list_products", handleJSON(s, s.listProducts))
	admin("POST /boss/payments/update_product", handleJSON(s, s.updateProduct))
	admin("POST /boss/payments/delete_product", handleJSON(s, s.deleteProduct))
	admin("POST /boss/accounts/list", handleAdminList(s, s.listAccounts))
	admin("POST /boss/accounts/set_plan", handleJSON(s, s.setPlan))
	admin("POST /boss/suggestions/list", handleAdminList(s, s.listSuggestions))
	admin("POST /boss/audit/list", handleAdminList(s, s.listAuditEvents))
	admin("POST /boss/decrypt_geoinfo2", handleJSON(s, s.decryptGeoInfo))
	admin("POST /boss/invites/create", handleJSON(s, s.createInvite))
	admin("POST /boss/invites/list", handleJSON(s, s.listInvites))
	admin("POST /boss/invites/revoke", handleJSON(s, s.revokeInvite))
	for _, act := range accountActions {
		admin("POST /boss/accounts/"+act.Name, handleJSON(s, s.runAccountAction(act)))
		admin("POST /admin/accounts/"+act.Name, handleAdminForm(s, act.Name, decodeAdminForm(accountForm), s.runAccountAction(act)))
	}

	admin("GET /admin", s.handleAdminPage())
	admin("POST /admin/accounts/set_plan", handleAdminForm(s, "plan_set", decodeAdminForm(setPlanForm), s.setPlanFromPage))
	admin("POST /admin/products", handleAdminForm(s, "product_created", decodeAdminForm(productForm), s.createProduct))
	admin("POST /admin/products/update", handleAdminForm(s, "product_updated", decodeAdminForm(productChangeForm), s.updateProduct))
	admin("POST /admin/products/delete", handleAdminForm(s, "product_deleted", decodeAdminForm(productIDForm), s.deleteProduct))
	admin("POST /admin/invites", handleAdminForm(s, "invite_created", decodeRequest[noRequest], s.createInvite))
	admin("POST /admin/invites/revoke", handleAdminForm(s, "invite_revoked", decodeAdminForm(inviteForm), s.revokeInvite))
}

// adminRoute registers an administrator's route behind its guard. The
// admin page, which a browser opens (GET), goes through adminPageOnly: a
// visitor without a session is sent to log in, an account that is not an
// administrator gets the page's refusal (403). Every other route goes
// through adminOnly: 401 without a credential (or with a wrong token),
// 403 for the session of an account that is not an administrator.
func (s *Server) adminRoute(mux router, pattern string, h http.Handler) {
	if strings.HasPrefix(pattern, http.MethodGet+" ") {
		mux.Handle(pattern, s.adminPageOnly(h))
		return
	}
	mux.Handle(pattern, s.adminOnly(h))
}
