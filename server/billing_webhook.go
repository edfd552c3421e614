package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"secutil/server/account"
	"secutil/store"
	"secutil/tools/webhooksig"
)

// POST /billing/payments/webhook: the payment provider's signed events,
// applied once each.

// Billing event types the webhook acts on.
const (
	eventActivated = "subscription.activated"
	eventRenewed   = "subscription.renewed"
	eventCanceled  = "subscription.canceled"
)

type webhookEvent struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

type webhookData struct {
	Email     string `json:"email"`
	Plan      string `json:"plan"`
	PaidUntil string `json:"paid_until"`
}

type webhookResponse struct {
	Status string `json:"status"` // applied, duplicate, ignored, unknown_account
}

var errBillingNotConfigured = newError(codeBillingNotConfigured, "billing webhooks are disabled: this server has no -billing-secret, and it never accepts unsigned events")

// webhookRequest is a billing event as it came: its body, read whole
// (bounded by maxWebhookBytes), and the signature header over it.
type webhookRequest struct {
	signature string
	body      []byte
}

// decodeWebhook reads a webhook's body unparsed: only a checked signature
// makes it worth parsing. A server without a billing secret refuses the
// event before reading it.
func (s *Server) decodeWebhook(w http.ResponseWriter, r *http.Request) (webhookRequest, error) {
	if s.BillingSecret == "" {
		return webhookRequest{}, errBillingNotConfigured
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBytes))
	return webhookRequest{signature: r.Header.Get(webhooksig.HeaderName), body: body}, err
}

// applyWebhook applies a signed billing event once: its signature is
// checked, and only then is it parsed.
func (s *Server) applyWebhook(ctx context.Context, req webhookRequest) (webhookResponse, error) {
	if err := webhooksig.Verify(req.signature, []byte(s.BillingSecret), req.body, s.Store.Now()); err != nil {
		return webhookResponse{}, err
	}
	ev, err := parseWebhookEvent(req.body)
	if err != nil {
		return webhookResponse{}, err
	}
	res, err := s.Store.ApplyPaymentEvent(ctx, ev)
	if err != nil {
		return webhookResponse{}, err
	}
	log := s.Logger.With("event_id", ev.ID, "event_type", ev.Type, "outcome", res.Outcome)
	switch res.Outcome {
	case store.PaymentApplied:
		log.Info("billing event applied", "account_id", res.AccountID, "from", res.OldPlan, "to", res.NewPlan)
		s.audit(ctx, store.AuditPlanChanged, res.AccountID, planChangeDetail("webhook "+ev.ID, res.OldPlan, res.NewPlan, ev.Change.PaidUntil))
	case store.PaymentIgnored:
		log.Warn("billing event of an unknown type ignored")
	case store.PaymentUnknownAccount:
		log.Warn("billing event for an email with no account ignored")
	default:
		log.Info("billing event already processed; nothing changed")
	}
	return webhookResponse{Status: res.Outcome}, nil
}

// maxEventIDLen bounds an event id (providers use ~30 characters).
const maxEventIDLen = 255

// parseWebhookEvent turns a verified body into the change it asks for.
// A known type with bad data is a 400: the sender has a bug to see.
func parseWebhookEvent(body []byte) (store.PaymentEvent, error) {
	var raw webhookEvent
	if err := json.Unmarshal(body, &raw); err != nil {
		return store.PaymentEvent{}, jsonDecodeError(err)
	}
	if err := required("id", raw.ID); err != nil {
		return store.PaymentEvent{}, err
	}
	if len(raw.ID) > maxEventIDLen {
		return store.PaymentEvent{}, badRequest("field \"id\" is longer than %d bytes", maxEventIDLen)
	}
	if err := required("type", raw.Type); err != nil {
		return store.PaymentEvent{}, err
	}
	ev := store.PaymentEvent{ID: raw.ID, Type: raw.Type}
	if raw.Type != eventActivated && raw.Type != eventRenewed && raw.Type != eventCanceled {
		return ev, nil // recorded and ignored
	}
	var data webhookData
	if len(raw.Data) == 0 || json.Unmarshal(raw.Data, &data) != nil {
		return ev, badRequest("field \"data\" must be an object")
	}
	if err := required("data.email", data.Email); err != nil {
		return ev, err
	}
	ev.Email = data.Email
	switch raw.Type {
	case eventCanceled:
		ev.Change = &store.PlanChange{Plan: store.PlanStarter}
		return ev, nil
	case eventActivated:
		if err := account.CheckPaidPlan("data.plan", data.Plan); err != nil {
			return ev, ruleError(err)
		}
	}
	until, err := parseTime("data.paid_until", data.PaidUntil)
	if err != nil {
		return ev, err
	}
	ev.Change = &store.PlanChange{PaidUntil: &until}
	if raw.Type == eventActivated {
		ev.Change.Plan = data.Plan
	}
	return ev, nil
}

// maxWebhookBytes bounds a webhook body; payment events are small.
const maxWebhookBytes = 64 << 10
