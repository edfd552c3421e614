package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestByteBudgetSharesAndTotal: a budget refuses what would pass a
// client's share, an account's share (over all its clients) or its total,
// says which, and forgets a holder once it gives everything back.
func TestByteBudgetSharesAndTotal(t *testing.T) {
	t.Parallel()
	b := newByteBudget(100, 40)
	ann, bob := holder{client: "192.0.2.1"}, holder{client: "192.0.2.2"}
	keyA, keyB := holder{client: "192.0.2.3", account: 7}, holder{client: "192.0.2.4", account: 7}
	steps := []struct {
		who  holder
		n    int64
		want refusal
	}{
		{ann, 40, refusedNone},
		{ann, 1, refusedShare},
		{bob, 40, refusedNone},
		{keyA, 20, refusedNone},
		{keyB, 21, refusedShare}, // account 7 would hold 41
		{keyB, 20, refusedFull},  // the total would be 120
		{keyB, 0, refusedNone},
	}
	for i, step := range steps {
		if got := b.take(step.who, step.n); got != step.want {
			t.Fatalf("step %d: take(%v, %d) = %d, want %d", i, step.who, step.n, got, step.want)
		}
	}
	if b.inUse() != 100 {
		t.Fatalf("in use %d, want 100", b.inUse())
	}
	b.give(ann, 40)
	b.give(bob, 40)
	b.give(keyA, 20)
	if b.inUse() != 0 || len(b.clients) != 0 || len(b.accounts) != 0 {
		t.Fatalf("after every holder gave back: used %d, clients %v, accounts %v", b.inUse(), b.clients, b.accounts)
	}
}

// TestBodyBudgetRefusesWhenFull: with the server's budget of body bytes
// taken by bodies being read, a new body is refused 503 busy with
// Retry-After; once they are read, it is decoded, and what it held is
// given back when it is decoded.
func TestBodyBudgetRefusesWhenFull(t *testing.T) {
	t.Parallel()
	s := &Server{Deps: Deps{Metrics: NewMetrics(), Bodies: BodyLimits{Budget: 1 << 20}.orDefaults()}}
	s.bodies = newByteBudget(s.Bodies.Budget, s.Bodies.Budget)
	request := func() (*httptest.ResponseRecorder, error) {
		body := `{"email":"ann@example.com","password":"p"}`
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
		w := httptest.NewRecorder()
		r.Body = &clientBody{ReadCloser: r.Body, s: s, req: r, header: w.Header()}
		_, err := decode[credentials](w, r)
		return w, err
	}
	other := holder{client: "198.51.100.1"}
	s.bodies.take(other, 1<<20-10)
	w, err := request()
	var ae *apiError
	if !errors.As(err, &ae) || ae.code != codeBusy || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("a full budget: %v, Retry-After %q", err, w.Header().Get("Retry-After"))
	}
	s.bodies.give(other, 1<<20-10)
	if _, err := request(); err != nil {
		t.Fatal(err)
	}
	if used := s.bodies.inUse(); used != 0 {
		t.Fatalf("the decoded body kept %d bytes of the budget", used)
	}
}
