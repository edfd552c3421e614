package server

import "net/http"

// apiScopes are the two prefixes under which every API route is served
// (SPEC: Versioning).
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
		{"/get_api_key", s.handleGetAPIKey()},
		{"/new_api_key", s.handleNewAPIKey()},
		{"/regenerate", s.handleRegenerate()},
		{"/user_info", s.handleUserInfo()},

		// Utilities (metered).
		{"/suggestion", s.metered(handleSuggestion, false)},
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

	mux.Handle("POST /login", s.handleLogin())
	mux.Handle("POST /register", s.handleRegister())
	mux.Handle("POST /register/verify", s.handleRegisterVerify())
	mux.Handle("POST /forgot-password", s.handleForgotPassword())
	mux.Handle("POST /forgot-password/verify", s.handleForgotPasswordVerify())
	mux.Handle("POST /logout", s.handleLogout())

	s.billingRoutes(mux)
}

// billingRoutes are billing and administration (handlers_billing.go,
// handlers_admin.go). Every /boss/ route goes through adminOnly.
func (s *Server) billingRoutes(mux *http.ServeMux) {
	mux.Handle("POST /switch_tier", s.handleSwitchTier())
	mux.Handle("POST /billing/create_checkout_session", s.handleCreateCheckoutSession())
	mux.Handle("POST /billing/payments/webhook", s.handleWebhook())

	mux.Handle("POST /boss/payments/create_product", s.adminOnly(s.handleCreateProduct()))
	mux.Handle("POST /boss/accounts/list", s.adminOnly(s.listHandler(s.listAccounts)))
	mux.Handle("POST /boss/accounts/set_plan", s.adminOnly(s.handleSetPlan()))
	mux.Handle("POST /boss/suggestions/list", s.adminOnly(s.listHandler(s.listSuggestions)))
	mux.Handle("POST /boss/audit/list", s.adminOnly(s.listHandler(s.listAuditEvents)))
}
