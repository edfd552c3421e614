package server

import (
	"net/http"

	"secutil/tools/jsonfmt"
)

// apiScopes are the two prefixes under which every API route is served
// (the OpenAPI document's servers).
var apiScopes = []string{"/api", "/api/v1"}

// apiRoute is one POST route of the API, relative to a scope: an account
// route with its own handler, or a metered utility.
type apiRoute struct {
	path    string
	handler http.Handler
	tool    utility
}

// serve is the route's handler under the API scopes: a utility there is
// metered and needs a key.
func (rt apiRoute) serve(s *Server) http.Handler {
	if rt.tool != nil {
		return s.metered(rt.tool)
	}
	return rt.handler
}

// apiRoutes is the table of API routes. Account routes authenticate
// themselves; utilities go through metered, which authenticates and counts.
func (s *Server) apiRoutes() []apiRoute {
	return []apiRoute{
		// Account routes (not metered).
		{path: "/get_api_key", handler: serve(s, withBody(s.getAPIKey))},
		{path: "/new_api_key", handler: serve(s, s.newAPIKey)},
		{path: "/regenerate", handler: serve(s, s.regenerate)},
		{path: "/user_info", handler: serve(s, s.userInfo)},

		// Utilities (metered).
		{path: "/base64", tool: handleBase64},
		{path: "/generate_random_key", tool: handleGenerateRandomKey},
		{path: "/jwt_decoder", tool: handleJWTDecoder},
		{path: "/json_format", tool: handleJSON(jsonfmt.Format)},
		{path: "/json_minify", tool: handleJSON(jsonfmt.Minify)},
		{path: "/suggestion", tool: handleSuggestion},
		{path: "/secure_encrypt", tool: handleCrypto(s.Crypto.Encrypt)},
		{path: "/secure_decrypt", tool: handleCrypto(s.Crypto.Decrypt)},
		{path: "/ip_info", tool: s.handleIPInfo},
		{path: "/password_check", tool: s.handlePasswordCheck},
		{path: "/entropy", tool: handleEntropy},
		{path: "/common_pwd", tool: handleCommonPassword},
		{path: "/data_breach", tool: s.handleDataBreach},
		{path: "/hash_generator", tool: s.handleHashGenerator},
		{path: "/hash_identifier", tool: handleHashIdentifier},
		{path: "/hash_lookup", tool: s.handleHashLookup},
		// Public: no key, not metered, limited per IP.
		{path: "/hash_lookup_site", handler: s.handleHashLookupSite()},
	}
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
			mux.Handle("POST "+scope+rt.path, rt.serve(s))
		}
	}

	mux.Handle("GET /health", s.handleHealth())
	mux.Handle("GET /robots", handleRobots())
	mux.Handle("GET /robots.txt", handleRobots())
	mux.Handle("GET /range/{prefix}", s.handleRange())
	mux.Handle("OPTIONS /range/{prefix}", s.handleRangePreflight())
	mux.Handle("GET /metrics", s.handleMetrics())

	// Account forms: a browser's form post gets a page, a JSON client JSON.
	mux.Handle("POST /login", formRoute(s, "login", s.login))
	mux.Handle("POST /register", formRoute(s, "register", s.register))
	mux.Handle("POST /setup", formRoute(s, "setup", s.setup))
	mux.Handle("POST /register/verify", formRoute(s, "register_verify", s.verifyRegistration))
	mux.Handle("POST /forgot-password", formRoute(s, "forgot", s.forgotPassword))
	mux.Handle("POST /forgot-password/verify", formRoute(s, "forgot_verify", s.resetPassword))
	mux.Handle("POST /logout", s.handleLogout())

	// Every utility again at the root, for the tools page (handlers_tools.go):
	// the session cookie works as well as a key, calls count toward usage,
	// and a browser's form post gets the page back with the answer in place.
	for _, rt := range routes {
		if rt.tool != nil {
			mux.Handle("POST "+rt.path, s.handleTool(rt.path, rt.tool))
		}
	}
	// The strength meter's preview while typing: free, limited per account.
	mux.Handle("POST /password_check/preview", s.handleStrengthPreview())

	// Web pages (templates/ and static/ in package web).
	mux.Handle("GET /{$}", s.handlePage("home"))
	mux.Handle("GET /static/{name}", s.handleStatic())
	mux.Handle("GET /login", s.handlePage("login"))
	mux.Handle("GET /register", s.handleRegisterPage())
	mux.Handle("GET /setup", s.handleSetupPage())
	mux.Handle("GET /register/verify", s.handlePage("register_verify"))
	mux.Handle("GET /forgot-password", s.handlePage("forgot"))
	mux.Handle("GET /forgot-password/verify", s.handlePage("forgot_verify"))
	mux.Handle("GET /tools", s.handleTools())
	mux.Handle("GET /dashboard", s.handleDashboard())
	mux.Handle("POST /dashboard/keys", s.handleDashboardCreateKey())
	mux.Handle("POST /dashboard/keys/rotate", s.handleDashboardRotateKey())
	mux.Handle("POST /dashboard/keys/revoke", s.handleDashboardRevoke())
	mux.Handle("GET /api-docs", s.handleOpenAPI())
	mux.Handle("GET /docs", s.handleReference())
	mux.Handle("GET /docs/{$}", s.handleReference())
	for _, name := range docPages {
		mux.Handle("GET /docs/"+name, s.handlePage("docs/"+name))
	}
	mux.Handle("GET /docs/errors", s.handleErrorsPage())

	s.billingRoutes(mux)
}

// billingRoutes are billing and administration (handlers_billing.go,
// handlers_admin.go). Every /boss/ route goes through adminOnly.
func (s *Server) billingRoutes(mux router) {
	mux.Handle("POST /switch_tier", s.handleSwitchTier())
	mux.Handle("POST /billing/create_checkout_session", serve(s, s.createCheckoutSession))
	mux.Handle("POST /billing/payments/webhook", serve(s, s.applyWebhook))

	mux.Handle("POST /boss/payments/create_product", s.adminOnly(serve(s, withBody(s.createProduct))))
	mux.Handle("POST /boss/accounts/list", s.adminOnly(adminList(s, s.listAccounts)))
	mux.Handle("POST /boss/accounts/set_plan", s.adminOnly(serve(s, withBody(s.setPlan))))
	mux.Handle("POST /boss/suggestions/list", s.adminOnly(adminList(s, s.listSuggestions)))
	mux.Handle("POST /boss/audit/list", s.adminOnly(adminList(s, s.listAuditEvents)))
	mux.Handle("POST /boss/decrypt_geoinfo2", s.adminOnly(serve(s, withBody(s.decryptGeoInfo))))
	mux.Handle("POST /boss/invites/create", s.adminOnly(serve(s, s.createInvite)))
	for _, act := range accountActions {
		mux.Handle("POST /boss/accounts/"+act.name, s.adminOnly(serve(s, withBody(s.runAccountAction(act)))))
		mux.Handle("POST /admin/accounts/"+act.name, adminForm(s, act.name, accountForm, s.runAccountAction(act)))
	}

	// The admin page (handlers_adminpage.go); its forms run the actions of the /boss/ routes.
	mux.Handle("GET /admin", s.handleAdminPage())
	mux.Handle("POST /admin/accounts/set_plan", adminForm(s, "plan_set", setPlanForm, s.setPlan))
	mux.Handle("POST /admin/products", adminForm(s, "product_created", productForm, s.createProduct))
	mux.Handle("POST /admin/invites", s.handleAdminInvite())
}
