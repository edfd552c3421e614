package server

import (
	"net/http"

	"secutil/tools/jsonfmt"
)

// apiScopes are the two prefixes under which every API route is served
// (the OpenAPI document's servers).
var apiScopes = []string{"/api", "/api/v1"}

// apiRoute is one POST route of the API, relative to a scope.
type apiRoute struct {
	path    string
	handler http.Handler
}

// apiRoutes is the table of API routes. Account routes authenticate
// themselves; utilities go through metered, which authenticates and counts.
func (s *Server) apiRoutes() []apiRoute {
	return []apiRoute{
		// Account routes (not metered).
		{"/get_api_key", serve(s, withBody(s.getAPIKey))},
		{"/new_api_key", serve(s, s.newAPIKey)},
		{"/regenerate", serve(s, s.regenerate)},
		{"/user_info", serve(s, s.userInfo)},

		// Utilities (metered).
		{"/base64", s.metered(handleBase64)},
		{"/generate_random_key", s.metered(handleGenerateRandomKey)},
		{"/jwt_decoder", s.metered(handleJWTDecoder)},
		{"/json_format", s.metered(handleJSON(jsonfmt.Format))},
		{"/json_minify", s.metered(handleJSON(jsonfmt.Minify))},
		{"/suggestion", s.metered(handleSuggestion)},
		{"/secure_encrypt", s.metered(handleCrypto(s.Crypto.Encrypt))},
		{"/secure_decrypt", s.metered(handleCrypto(s.Crypto.Decrypt))},
		{"/ip_info", s.metered(s.handleIPInfo)},
		{"/password_check", s.metered(handlePasswordCheck)},
		{"/entropy", s.metered(handleEntropy)},
		{"/common_pwd", s.metered(handleCommonPassword)},
		{"/data_breach", s.metered(s.handleDataBreach)},
		{"/hash_generator", s.metered(s.handleHashGenerator)},
		{"/hash_identifier", s.metered(handleHashIdentifier)},
		{"/hash_lookup", s.metered(s.handleHashLookup)},
		{"/hash_lookup_site", s.handleHashLookupSite()},
	}
}

func (s *Server) routes(mux *http.ServeMux) {
	for _, scope := range apiScopes {
		for _, rt := range s.apiRoutes() {
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
	mux.Handle("POST /login", formRoute(s, "login", s.login))
	mux.Handle("POST /register", formRoute(s, "register", s.register))
	mux.Handle("POST /register/verify", formRoute(s, "register_verify", s.verifyRegistration))
	mux.Handle("POST /forgot-password", formRoute(s, "forgot", s.forgotPassword))
	mux.Handle("POST /forgot-password/verify", formRoute(s, "forgot_verify", s.resetPassword))
	mux.Handle("POST /logout", s.handleLogout())

	// Root-level variants of API tools for the web tools page: they accept
	// the session cookie as well as an API key, and count toward usage.
	mux.Handle("POST /ip_info", s.meteredWeb(s.handleIPInfo))
	mux.Handle("POST /hash_generator", s.meteredWeb(s.handleHashGenerator))
	mux.Handle("POST /hash_identifier", s.meteredWeb(handleHashIdentifier))
	mux.Handle("POST /data_breach", s.meteredWeb(s.handleDataBreach))
	mux.Handle("POST /common_pwd", s.meteredWeb(handleCommonPassword))
	mux.Handle("POST /password_check", s.meteredWeb(handlePasswordCheck))

	// Web pages (templates/ and static/ in package web).
	mux.Handle("GET /{$}", s.handlePage("home"))
	mux.Handle("GET /static/{name}", s.handleStatic())
	mux.Handle("GET /login", s.handlePage("login"))
	mux.Handle("GET /register", s.handlePage("register"))
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

	// Everything else: JSON 404 or 405 (middleware.go).
	mux.Handle("/", s.noRoute(mux))
}

// billingRoutes are billing and administration (handlers_billing.go,
// handlers_admin.go). Every /boss/ route goes through adminOnly.
func (s *Server) billingRoutes(mux *http.ServeMux) {
	mux.Handle("POST /switch_tier", s.handleSwitchTier())
	mux.Handle("POST /billing/create_checkout_session", serve(s, s.createCheckoutSession))
	mux.Handle("POST /billing/payments/webhook", serve(s, s.applyWebhook))

	mux.Handle("POST /boss/payments/create_product", s.adminOnly(serve(s, withBody(s.createProduct))))
	mux.Handle("POST /boss/accounts/list", s.adminOnly(adminList(s, s.listAccounts)))
	mux.Handle("POST /boss/accounts/set_plan", s.adminOnly(serve(s, withBody(s.setPlan))))
	mux.Handle("POST /boss/suggestions/list", s.adminOnly(adminList(s, s.listSuggestions)))
	mux.Handle("POST /boss/audit/list", s.adminOnly(adminList(s, s.listAuditEvents)))
	mux.Handle("POST /boss/decrypt_geoinfo2", s.adminOnly(serve(s, withBody(s.decryptGeoInfo))))

	// The admin page (handlers_adminpage.go); its forms run the actions of the /boss/ routes.
	mux.Handle("GET /admin", s.handleAdminPage())
	mux.Handle("POST /admin/accounts/set_plan", adminForm(s, "plan_set", setPlanForm, s.setPlan))
	mux.Handle("POST /admin/products", adminForm(s, "product_created", productForm, s.createProduct))
}
