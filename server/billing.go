package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"secutil/server/account"
	"secutil/store"
)

// Plans and payments: the checkout provider, POST
// /billing/create_checkout_session, and a user's change of plan (POST
// /switch_tier). The provider reports payments to the webhook
// (billing_webhook.go).

// CheckoutProvider turns a product and a buyer into the URL of a payment
// page. The provider later reports the payment to the webhook.
type CheckoutProvider interface {
	CheckoutURL(ctx context.Context, c Checkout) (string, error)
}

// Checkout is one purchase to start.
type Checkout struct {
	Product store.Product
	Email   string
	Ref     string // identifies the account to the relay: "account-<id>"
}

// TemplateCheckout builds a hosted-checkout URL from a template whose
// placeholders {product_id} {plan} {price_cents} {currency} {interval}
// {email} {ref} are replaced by URL-escaped values.
type TemplateCheckout struct {
	template string
}

// NewTemplateCheckout checks that template is an absolute http(s) URL.
func NewTemplateCheckout(template string) (*TemplateCheckout, error) {
	u, err := url.Parse(template)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("checkout URL template %q must be an absolute http(s) URL", template)
	}
	return &TemplateCheckout{template: template}, nil
}

// Origin is the scheme and host of the payment pages, which the pages'
// Content-Security-Policy must let the plan form go to.
func (t *TemplateCheckout) Origin() string {
	u, _ := url.Parse(t.template) // NewTemplateCheckout parsed it
	return u.Scheme + "://" + u.Host
}

// checkoutOrigin is the origin of the provider's payment pages, "" without
// a provider or for one that does not say.
func checkoutOrigin(c CheckoutProvider) string {
	if o, ok := c.(interface{ Origin() string }); ok {
		return o.Origin()
	}
	return ""
}

// CheckoutURL fills in the template.
func (t *TemplateCheckout) CheckoutURL(_ context.Context, c Checkout) (string, error) {
	esc := url.QueryEscape
	return strings.NewReplacer(
		"{product_id}", esc(strconv.FormatInt(c.Product.ID, 10)),
		"{plan}", esc(c.Product.Plan),
		"{price_cents}", esc(strconv.FormatInt(c.Product.PriceCents, 10)),
		"{currency}", esc(c.Product.Currency),
		"{interval}", esc(c.Product.Interval),
		"{email}", esc(c.Email),
		"{ref}", esc(c.Ref),
	).Replace(t.template), nil
}

var errCheckoutNotConfigured = newError(codeBillingNotConfigured, "no payment provider is configured on this server (start it with -checkout-url); an admin can set plans with POST /boss/accounts/set_plan")

type planRequest struct {
	Plan string `json:"plan"`
}

func (p *planRequest) check() error {
	if err := required("plan", p.Plan); err != nil {
		return err
	}
	return ruleError(account.CheckPlan(p.Plan, nil, false))
}

type urlResponse struct {
	URL string `json:"url"`
}

// checkoutURL asks the provider for a payment page selling plan to a.
func (s *Server) checkoutURL(ctx context.Context, a *store.Account, plan string) (string, error) {
	if plan == store.PlanStarter {
		return "", badRequest("field \"plan\": starter is free and needs no checkout; use /switch_tier")
	}
	if s.Checkout == nil {
		return "", errCheckoutNotConfigured
	}
	p, err := s.Store.ProductForPlan(ctx, plan)
	if errors.Is(err, store.ErrNotFound) {
		return "", badRequest("there is no product for the %s plan yet: an admin must create one with POST /boss/payments/create_product", plan)
	}
	if err != nil {
		return "", err
	}
	return s.Checkout.CheckoutURL(ctx, Checkout{Product: *p, Email: a.Email, Ref: "account-" + strconv.FormatInt(a.ID, 10)})
}

// createCheckoutSession answers {"url"} of a payment page for the
// session's account.
func (s *Server) createCheckoutSession(ctx context.Context, req sessionRequest[planRequest]) (urlResponse, error) {
	u, err := s.checkoutURL(ctx, req.account, req.body.Plan)
	if err != nil {
		return urlResponse{}, err
	}
	return urlResponse{URL: u}, nil
}

// switchTierRequest is /switch_tier's body. Confirm is the user's yes to
// leaving a paid plan: the dashboard asks for it in a step of its own, a
// JSON client sends "confirm": true.
type switchTierRequest struct {
	planRequest
	Confirm *formBool `json:"confirm"`
}

type switchTierResponse struct {
	Status string `json:"status"` // switched, or cancelled: the paid plan stays until paid_until
	Plan   string `json:"plan"`   // the plan in force now
	// PaidUntil is when a cancelled paid plan ends (then starter).
	PaidUntil *string `json:"paid_until,omitempty"`
}

// planFormFailure answers a browser whose plan form failed: a move to
// starter sent without confirm goes to the dashboard's confirmation step,
// any other failure to the dashboard with the error (or to the login page
// without a session).
func (s *Server) planFormFailure(w http.ResponseWriter, r *http.Request, err error) {
	var unconfirmed leavingUnconfirmed
	if errors.As(err, &unconfirmed) {
		http.Redirect(w, r, "/dashboard?leave=starter#confirm-plan", http.StatusSeeOther)
		return
	}
	s.dashboardFailure(w, r, err)
}

// errPlanSetByAdmin refuses a user's change of a plan an administrator
// set: only an administrator changes it.
var errPlanSetByAdmin = newError(codeForbidden, "an administrator set this account's plan: ask an administrator of this server to change it")

// leavingUnconfirmed is a move to starter that
// account.LeavingNeedsConfirmation asks to confirm, sent without confirm: a JSON client gets its 400, a
// browser the dashboard's confirmation step.
type leavingUnconfirmed struct{ *apiError }

func (e leavingUnconfirmed) Unwrap() error { return e.apiError }

// whatLeavingDoes says what leaving a's paid plan for starter does.
func whatLeavingDoes(a *store.Account, now time.Time) string {
	if a.PaidUntil != nil && a.PaidUntil.After(now) {
		return fmt.Sprintf("the %s plan stays until %s, then the account is on starter (%d metered items a month)", a.Plan, a.PaidUntil.UTC().Format("2 Jan 2006"), store.StarterCap)
	}
	return fmt.Sprintf("the account moves to starter (%d metered items a month) at once", store.StarterCap)
}

// switchTier applies the user's choice of plan (account.SwitchOwnPlan): a
// plan an administrator set is refused (403), a paid plan goes to checkout
// ({"url"} for JSON clients, the payment page for a browser), starter from
// a paid plan needs confirm and keeps the paid plan until its paid_until.
func (s *Server) switchTier(ctx context.Context, req sessionRequest[switchTierRequest]) (formResult, error) {
	a, plan := req.account, req.body.Plan
	now := s.Store.Now()
	if account.LeavingNeedsConfirmation(a, plan, now) && (req.body.Confirm == nil || !bool(*req.body.Confirm)) {
		return formResult{}, leavingUnconfirmed{newError(codeMissingField, "leaving the %s plan needs confirmation: send \"confirm\": true (%s)", a.Plan, whatLeavingDoes(a, now))}
	}
	sw, err := s.owner().SwitchOwnPlan(ctx, a, plan)
	if errors.Is(err, account.ErrPlanSetByAdmin) {
		return formResult{}, errPlanSetByAdmin
	}
	if err != nil {
		return formResult{}, ruleError(err)
	}
	if sw.Checkout {
		u, err := s.checkoutURL(ctx, a, plan)
		if err != nil {
			return formResult{}, err
		}
		return formResult{next: u, body: urlResponse{URL: u}}, nil
	}
	if sw.Until != nil {
		if sw.Changed {
			s.audit(ctx, store.AuditPlanChanged, a.ID, planChangeDetail("switch_tier, at the end of the paid period", sw.Plan, store.PlanStarter, sw.Until))
		}
		until := sw.Until.UTC().Format(time.RFC3339)
		return formResult{next: "/dashboard?notice=plan_cancelled", body: switchTierResponse{Status: "cancelled", Plan: sw.Plan, PaidUntil: &until}}, nil
	}
	if sw.Changed {
		s.audit(ctx, store.AuditPlanChanged, a.ID, planChangeDetail("switch_tier", a.Plan, store.PlanStarter, nil))
	}
	return formResult{next: "/dashboard?notice=plan_starter", body: switchTierResponse{Status: "switched", Plan: store.PlanStarter}}, nil
}

// planChangeDetail is the audit detail of a plan change.
func planChangeDetail(source, from, to string, paidUntil *time.Time) string {
	d := fmt.Sprintf("%s: %s -> %s", source, from, to)
	if paidUntil != nil {
		d += ", paid_until " + paidUntil.UTC().Format(time.RFC3339)
	}
	return d
}
