package server_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestShowPasswordToggle: on the account forms, "Show password" turns the
// password field into text and back, from static/app.js under the
// page's Content-Security-Policy (a violation fails the test).
func TestShowPasswordToggle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, b := journeyServer(t, e)
	for _, tc := range []struct{ page, field string }{
		{"/login", "password"}, {"/register", "password"}, {"/forgot-password/verify", "new_password"},
	} {
		b.open(t, tc.page)
		toggle := `main [data-show-password="` + tc.field + `"]`
		typeOf := `document.getElementById("` + tc.field + `").type`
		b.do(t, "type a password on "+tc.page, chromedp.WaitVisible(chromedp.CSS(toggle)), chromedp.SendKeys(chromedp.ID(tc.field), "secret words"))
		if got := eval[string](t, b, typeOf); got != "password" {
			t.Fatalf("%s: the field starts as %q", tc.page, got)
		}
		b.do(t, "show", chromedp.Click(chromedp.CSS(toggle)))
		if got, label := eval[string](t, b, typeOf), b.text(t, toggle); got != "text" || label != "Hide password" {
			t.Fatalf("%s: shown as %q, button %q", tc.page, got, label)
		}
		b.do(t, "hide", chromedp.Click(chromedp.CSS(toggle)))
		if got := eval[string](t, b, typeOf); got != "password" {
			t.Fatalf("%s: hidden again as %q", tc.page, got)
		}
	}
}
