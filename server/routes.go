package server

import "net/http"

// The shape of every route: an adapter decodes the request into its type,
// runs the action, and encodes the action's response or error. Every
// action is an action (utilities.go): func(ctx, req) (resp, error); none
// sees the http.ResponseWriter or the *http.Request. A utility's action
// finds its caller with callOf(ctx). Any other route's action gets its
// caller in its request when the decoder authenticated one (keyRequest,
// sessionRequest), finds the rest it needs of the exchange (client
// address, session token, scheme) with exchangeOf(ctx) (respond.go), and
// asks for cookies and headers through it. The adapters differ only in how
// they decode and encode: handleMetered (a utility, metered; metering.go),
// and, sharing the core runAction, handleJSON and handleJSONFrom (JSON,
// the latter with a decoder of the route's own), handleForm (a page's form
// or JSON), handleDashboardForm and handleAdminForm (a form that
// redirects, or shows its page again with the error) and handleAdminList
// (a paginated /boss/ list). Names: a function named handleX returns an
// http.Handler; a decoder is named decodeX; an action is named for what it
// does (convertBase64, login), never handleX.

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
	// (handlers_utilitypage.go): the session cookie works as well as a key,
	// calls count toward usage, and a browser's form post gets the page back
	// with the answer in place.
	for _, u := range utilities {
		mux.Handle("POST "+u.path, s.handleUtilityOnPage(u))
	}
	// The strength meter's preview while typing: free, limited per account.
	mux.Handle("POST /password_check/preview", s.handleStrengthPreview())

	// Web pages (templates/ and static/ in package web).
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
	mux.Handle("POST /account/password", handleAccountForm(s, s.changeOwnPassword))
	mux.Handle("POST /account/delete", handleAccountForm(s, s.deleteOwnAccount))
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
	mux.Handle("POST /billing/create_checkout_session", handleJSONFrom(s, decodeSession[planRequest](s), s.createCheckoutSession))
	mux.Handle("POST /billing/payments/webhook", handleJSONFrom(s, s.decodeWebhook, s.applyWebhook))

	mux.Handle("POST /boss/payments/create_product", s.adminOnly(handleJSON(s, s.createProduct)))
	mux.Handle("POST /boss/payments/list_products", s.adminOnly(handleJSON(s, s.listProducts)))
	mux.Handle("POST /boss/payments/update_product", s.adminOnly(handleJSON(s, s.updateProduct)))
	mux.Handle("POST /boss/payments/delete_product", s.adminOnly(handleJSON(s, s.deleteProduct)))
	mux.Handle("POST /boss/accounts/list", s.adminOnly(handleAdminList(s, s.listAccounts)))
	mux.Handle("POST /boss/accounts/set_plan", s.adminOnly(handleJSON(s, s.setPlan)))
	mux.Handle("POST /boss/suggestions/list", s.adminOnly(handleAdminList(s, s.listSuggestions)))
	mux.Handle("POST /boss/audit/list", s.adminOnly(handleAdminList(s, s.listAuditEvents)))
	mux.Handle("POST /boss/decrypt_geoinfo2", s.adminOnly(handleJSON(s, s.decryptGeoInfo)))
	mux.Handle("POST /boss/invites/create", s.adminOnly(handleJSON(s, s.createInvite)))
	mux.Handle("POST /boss/invites/list", s.adminOnly(handleJSON(s, s.listInvites)))
	mux.Handle("POST /boss/invites/revoke", s.adminOnly(handleJSON(s, s.revokeInvite)))
	for _, act := range accountActions {
		mux.Handle("POST /boss/accounts/"+act.Name, s.adminOnly(handleJSON(s, s.runAccountAction(act))))
		mux.Handle("POST /admin/accounts/"+act.Name, handleAdminForm(s, act.Name, accountForm, s.runAccountAction(act)))
	}

	// The admin page (handlers_adminpage.go); its forms run the actions of the /boss/ routes.
	mux.Handle("GET /admin", s.handleAdminPage())
	mux.Handle("POST /admin/accounts/set_plan", handleAdminForm(s, "plan_set", setPlanForm, s.setPlan))
	mux.Handle("POST /admin/products", handleAdminForm(s, "product_created", productForm, s.createProduct))
	mux.Handle("POST /admin/products/update", handleAdminForm(s, "product_updated", productChangeForm, s.updateProduct))
	mux.Handle("POST /admin/products/delete", handleAdminForm(s, "product_deleted", productIDForm, s.deleteProduct))
	mux.Handle("POST /admin/invites", s.handleAdminInvite())
	mux.Handle("POST /admin/invites/revoke", handleAdminForm(s, "invite_revoked", inviteForm, s.revokeInvite))
}
