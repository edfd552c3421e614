package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"secutil/store"
	"secutil/tools/webhooksig"
)

// event is a webhook body.
func event(id, typ string, data map[string]any) []byte {
	raw, err := json.Marshal(map[string]any{"id": id, "type": typ, "data": data})
	if err != nil {
		panic(err)
	}
	return raw
}

func rfc(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

func TestWebhookWithoutSecretIsDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.account("ann@example.com", store.PlanStarter)
	body := event("evt_1", "subscription.canceled", map[string]any{"email": "ann@example.com"})
	e.webhook(body).wantError(http.StatusServiceUnavailable, "billing_not_configured")
	e.post("/billing/payments/webhook", body).wantError(http.StatusServiceUnavailable, "billing_not_configured")
}

func TestWebhookSignatureEdgeCases(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	e.account("ann@example.com", store.PlanStarter)
	body := event("evt_sig", "subscription.activated", map[string]any{
		"email": "ann@example.com", "plan": "pro", "paid_until": rfc(time.Now().Add(30 * 24 * time.Hour))})
	now := time.Now().Unix()
	good := webhooksig.Format(now, body, []byte(billingSecret))
	refused := []struct {
		name, header string
		body         []byte
		code         string
	}{
		{"missing header", "", body, "invalid_signature"},
		{"malformed header", "v1=abc;t=1", body, "invalid_signature"},
		{"wrong secret", webhooksig.Format(now, body, []byte("not the secret")), body, "invalid_signature"},
		{"tampered body", good, []byte(strings.Replace(string(body), `"pro"`, `"enterprise"`, 1)), "invalid_signature"},
		{"stale timestamp", webhooksig.Format(now-6*60, body, []byte(billingSecret)), body, "stale_signature"},
		{"future timestamp", webhooksig.Format(now+6*60, body, []byte(billingSecret)), body, "stale_signature"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			e.in(t).post("/billing/payments/webhook", tt.body, webhooksig.HeaderName, tt.header).wantError(http.StatusUnauthorized, tt.code)
		})
	}
	e.t = t
	if got := e.accountOf("ann@example.com").Plan; got != store.PlanStarter {
		t.Fatalf("plan after refused events: got %v, want starter", got)
	}
	// Two signatures (a secret rotation), one valid: accepted.
	rotating := webhooksig.Format(now, body, []byte("old secret"), []byte(billingSecret))
	res := e.post("/billing/payments/webhook", body, webhooksig.HeaderName, rotating).want(http.StatusOK)
	if got := res.json()["status"]; got != "applied" {
		t.Fatalf("status %v, want applied", got)
	}
	if got := e.accountOf("ann@example.com").Plan; got != store.PlanPro {
		t.Fatalf("plan: got %v, want pro", got)
	}
}

func TestWebhookSubscriptionLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	key := e.key("ann@example.com", store.PlanStarter)
	until := time.Now().Add(30 * 24 * time.Hour)
	activate := event("evt_a", "subscription.activated", map[string]any{"email": "ann@example.com", "plan": "pro", "paid_until": rfc(until)})
	e.webhook(activate).want(http.StatusOK)
	info := e.post("/api/user_info", nil, "X-API-Key", key).want(http.StatusOK).json()
	if info["plan"] != "pro" || info["paid_until"] != rfc(until) || info["max_usage_for_plan"] != nil {
		t.Fatalf("after activation: %v", info)
	}

	later := until.Add(30 * 24 * time.Hour)
	e.webhook(event("evt_r", "subscription.renewed", map[string]any{"email": "ann@example.com", "paid_until": rfc(later)})).want(http.StatusOK)
	if got := e.post("/api/user_info", nil, "X-API-Key", key).json()["paid_until"]; got != rfc(later) {
		t.Fatalf("paid_until after renewal: got %v, want %v", got, rfc(later))
	}

	e.webhook(event("evt_c", "subscription.canceled", map[string]any{"email": "ann@example.com"})).want(http.StatusOK)
	info = e.post("/api/user_info", nil, "X-API-Key", key).json()
	if info["plan"] != "starter" || info["paid_until"] != nil || info["max_usage_for_plan"] != float64(100) {
		t.Fatalf("after cancellation: %v", info)
	}

	// A replayed activation answers 200 and changes nothing.
	res := e.webhook(activate).want(http.StatusOK)
	if got := res.json()["status"]; got != "duplicate" {
		t.Fatalf("replay status %v, want duplicate", got)
	}
	if got := e.accountOf("ann@example.com").Plan; got != store.PlanStarter {
		t.Fatalf("plan after a replay: got %v, want starter", got)
	}
	if got, want := len(e.planChanges()), 3; got != want {
		t.Fatalf("plan_changed audit events: got %v, want %v", got, want)
	}
}

// TestEnterpriseCapSurvivesCancelAndReactivation: a cancellation dropped
// the cap an admin set, so the re-activated enterprise account had none.
func TestEnterpriseCapSurvivesCancelAndReactivation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling, withAdminToken)
	key := e.key("big@example.com", store.PlanStarter)
	until := rfc(time.Now().Add(30 * 24 * time.Hour))
	capOf := func() any {
		return e.post("/api/user_info", nil, "X-API-Key", key).want(http.StatusOK).json()["max_usage_for_plan"]
	}
	e.webhook(event("evt_1", "subscription.activated", map[string]any{"email": "big@example.com", "plan": "enterprise", "paid_until": until})).want(http.StatusOK)
	e.post("/boss/accounts/set_plan", map[string]any{"email": "big@example.com", "plan": "enterprise", "paid_until": until, "usage_cap": 5000},
		"Authorization", "Bearer "+adminToken).want(http.StatusOK)
	if got := capOf(); got != float64(5000) {
		t.Fatalf("cap after the admin set it: %v", got)
	}
	e.webhook(event("evt_2", "subscription.canceled", map[string]any{"email": "big@example.com"})).want(http.StatusOK)
	if got := capOf(); got != float64(store.StarterCap) {
		t.Fatalf("cap while on starter: %v", got)
	}
	e.webhook(event("evt_3", "subscription.activated", map[string]any{"email": "big@example.com", "plan": "enterprise", "paid_until": until})).want(http.StatusOK)
	if got := capOf(); got != float64(5000) {
		t.Fatalf("cap after re-activation: %v, want the admin's 5000", got)
	}
	// The re-activated plan is the user's purchase, theirs to leave: it
	// stays until paid_until, with the cap.
	session := e.login("big@example.com")
	e.post("/switch_tier", map[string]any{"plan": "starter", "confirm": true}, "Cookie", session).want(http.StatusOK)
	if got := capOf(); got != float64(5000) {
		t.Fatalf("cap after leaving the plan (until paid_until): %v", got)
	}
}

// TestPlanBoughtAfterAnAdminsIsTheUsers: an administrator's plan is not
// the user's to leave, but a plan the user then buys through the billing
// webhook is: the user may leave it (it stays until paid_until) or move to
// another self-service plan.
func TestPlanBoughtAfterAnAdminsIsTheUsers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling, withAdminToken)
	e.account("ann@example.com", store.PlanStarter)
	e.createProduct(store.PlanEnterprise, 99900)
	e.post("/boss/accounts/set_plan", map[string]any{"email": "ann@example.com", "plan": "enterprise", "usage_cap": 5},
		"Authorization", "Bearer "+adminToken).want(http.StatusOK)
	session := e.login("ann@example.com")
	e.post("/switch_tier", map[string]any{"plan": "starter", "confirm": true}, "Cookie", session).wantError(http.StatusForbidden, "forbidden")

	until := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	e.webhook(event("evt_buy", "subscription.activated", map[string]any{"email": "ann@example.com", "plan": "pro", "paid_until": rfc(until)})).want(http.StatusOK)
	if a := e.accountOf("ann@example.com"); a.PlanByAdmin || a.Plan != store.PlanPro {
		t.Fatalf("after the purchase: %+v", a)
	}
	if u, _ := e.post("/switch_tier", map[string]string{"plan": "enterprise"}, "Cookie", session).want(http.StatusOK).json()["url"].(string); !strings.HasPrefix(u, "https://pay.example/checkout?") {
		t.Fatalf("moving to another paid plan: checkout url %q", u)
	}
	res := e.post("/switch_tier", map[string]any{"plan": "starter", "confirm": true}, "Cookie", session).want(http.StatusOK).json()
	if res["status"] != "cancelled" || res["plan"] != "pro" || res["paid_until"] != rfc(until) {
		t.Fatalf("leaving the bought plan: %v", res)
	}
}

func TestWebhookIgnoresUnknownTypesAndEmails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	e.account("ann@example.com", store.PlanStarter)
	tests := []struct {
		name, status, log string
		body              []byte
	}{
		{"unknown type", "ignored", "unknown type", event("evt_x", "invoice.paid", map[string]any{"email": "ann@example.com"})},
		{"unknown email", "unknown_account", "no account", event("evt_y", "subscription.canceled", map[string]any{"email": "nobody@example.com"})},
	}
	for _, tt := range tests {
		res := e.webhook(tt.body).want(http.StatusOK)
		if got := res.json()["status"]; got != tt.status {
			t.Fatalf("%s: status %v, want %v", tt.name, got, tt.status)
		}
		if !strings.Contains(e.logs.String(), tt.log) {
			t.Fatalf("%s: log lacks %q:\n%s", tt.name, tt.log, e.logs)
		}
	}
}

func TestWebhookRefusesBadEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	e.account("ann@example.com", store.PlanStarter)
	future := rfc(time.Now().Add(time.Hour))
	tests := []struct {
		name string
		body []byte
		code string
	}{
		{"not JSON", []byte("hello"), "invalid_request"},
		{"no id", event("", "subscription.canceled", map[string]any{"email": "ann@example.com"}), "missing_field"},
		{"no email", event("evt_1", "subscription.canceled", map[string]any{}), "missing_field"},
		{"starter activation", event("evt_2", "subscription.activated", map[string]any{"email": "ann@example.com", "plan": "starter", "paid_until": future}), "invalid_request"},
		{"bad paid_until", event("evt_3", "subscription.renewed", map[string]any{"email": "ann@example.com", "paid_until": "tomorrow"}), "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t
			e.webhook(tt.body).wantError(http.StatusBadRequest, tt.code)
		})
	}
	e.t = t
	big := []byte(`{"id":"evt_big","type":"x","data":"` + strings.Repeat("a", 70<<10) + `"}`)
	e.webhook(big).wantError(http.StatusRequestEntityTooLarge, "request_too_large")
}

func TestWebhookIsExemptFromCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	e.account("ann@example.com", store.PlanPro)
	body := event("evt_1", "subscription.canceled", map[string]any{"email": "ann@example.com"})
	e.post("/billing/payments/webhook", body,
		webhooksig.HeaderName, webhooksig.Format(time.Now().Unix(), body, []byte(billingSecret)),
		"Sec-Fetch-Site", "cross-site", "Origin", "https://pay.example").want(http.StatusOK)
}

func TestConcurrentWebhookDeliveryAppliesOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	e.account("ann@example.com", store.PlanStarter)
	body := event("evt_once", "subscription.activated", map[string]any{
		"email": "ann@example.com", "plan": "enterprise", "paid_until": rfc(time.Now().Add(time.Hour))})
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := e.webhook(body)
			var m map[string]any
			json.Unmarshal(res.body, &m)
			mu.Lock()
			statuses[fmt.Sprintf("%d %v", res.status, m["status"])]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if statuses["200 applied"] != 1 || statuses["200 duplicate"] != 19 {
		t.Fatalf("statuses %v, want 1 applied and 19 duplicates", statuses)
	}
	if got, want := len(e.planChanges()), 1; got != want {
		t.Fatalf("plan_changed audit events: got %v, want %v", got, want)
	}
}

func TestExpiredPaidPlanActsAsStarter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withBilling)
	key := e.key("ann@example.com", store.PlanStarter)
	a := e.accountOf("ann@example.com")
	past := time.Now().Add(-time.Hour)
	if err := e.store.SetPlan(context.Background(), a.ID, store.PlanPro, &past, nil); err != nil {
		t.Fatal(err)
	}
	info := e.post("/api/user_info", nil, "X-API-Key", key).want(http.StatusOK).json()
	if info["plan"] != "starter" || info["max_usage_for_plan"] != float64(store.StarterCap) {
		t.Fatalf("after expiry: %v", info)
	}
	e.fill(a.ID, store.StarterCap)
	e.meteredCall(key).wantError(http.StatusTooManyRequests, "plan_limit_reached")

	// A renewal lifts the cap again.
	e.webhook(event("evt_r", "subscription.renewed", map[string]any{"email": "ann@example.com", "paid_until": rfc(time.Now().Add(time.Hour))})).want(http.StatusOK)
	if got := e.post("/api/user_info", nil, "X-API-Key", key).json()["plan"]; got != "pro" {
		t.Fatalf("plan after renewal: got %v, want pro", got)
	}
	e.meteredCall(key).want(http.StatusOK)
}
