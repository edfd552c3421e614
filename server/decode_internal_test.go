package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBodyBudgetRefusesWhenFull: with the server's budget of body bytes
// taken by bodies being read, a new body is refused 503 busy with
// Retry-After, unread; once they are read, it is decoded.
func TestBodyBudgetRefusesWhenFull(t *testing.T) {
	t.Parallel()
	var budget bodyBudget
	request := func() (*httptest.ResponseRecorder, error) {
		body := `{"email":"ann@example.com","password":"p"}`
		r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(body))
		r.Body = &clientBody{r.Body, &budget}
		w := httptest.NewRecorder()
		_, err := decode[credentials](w, r)
		return w, err
	}
	for budget.take(maxBodyBytes) {
	}
	w, err := request()
	var ae *apiError
	if !errors.As(err, &ae) || ae.code != codeBusy || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("a full budget: %v, Retry-After %q", err, w.Header().Get("Retry-After"))
	}
	budget.give(maxBodyBytes)
	if _, err := request(); err != nil {
		t.Fatal(err)
	}
	if budget.used != maxBodiesBytes-maxBodyBytes {
		t.Fatalf("the decoded body kept %d bytes of the budget", budget.used-(maxBodiesBytes-maxBodyBytes))
	}
}
