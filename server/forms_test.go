package server_test

import (
	"net/url"
	"strings"
	"testing"
)

func TestFormsRedirectOnSuccessAndRerenderOnError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const email = "form@example.com"
	res := e.form("/register", url.Values{"email": {email}, "password": {"short"}}, "").want(400)
	res.has("at least 15 characters").has(`value="form@example.com"`)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("error page Content-Type %q", ct)
	}

	res = e.form("/register", url.Values{"email": {email}, "password": {testPassword}}, "").want(303)
	if got, want := res.location(), "/register/verify?email=form%40example.com"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.form("/register/verify", url.Values{"email": {email}, "code": {"000000"}, "password": {testPassword}}, "").want(400).has("code")
	res = e.form("/register/verify", url.Values{"email": {email}, "code": {e.mail.lastCode(t, email)}, "password": {testPassword}}, "").want(303)
	if got, want := res.location(), "/dashboard?notice=verified"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.request("GET", res.location(), nil, "Cookie", sessionFrom(res)).want(200).has("Your account is verified and you are logged in")

	e.form("/login", url.Values{"email": {email}, "password": {"wrong password for sure"}}, "").want(401).has("Invalid email or password")
	res = e.form("/login", url.Values{"email": {email}, "password": {testPassword}}, "").want(303)
	if got, want := res.location(), "/dashboard"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	session := sessionFrom(res)
	e.request("GET", "/dashboard", nil, "Cookie", session).want(200).has(email)

	e.form("/forgot-password", url.Values{"email": {email}}, "").want(303)
	e.form("/forgot-password/verify", url.Values{"email": {email}, "code": {e.mail.resetCode(t, email)}, "new_password": {"another long pass phrase"}}, "").want(303)
	// The reset ended every session.
	if got, want := e.request("GET", "/dashboard", nil, "Cookie", session).want(303).location(), "/login?next=%2Fdashboard"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}

	session = sessionFrom(e.form("/login", url.Values{"email": {email}, "password": {"another long pass phrase"}}, "").want(303))
	if got, want := e.form("/logout", url.Values{}, session).want(303).location(), "/?notice=logged_out"; got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
	e.request("GET", "/dashboard", nil, "Cookie", session).want(303)
}

func TestFormPagesEscapeWhatTheyEcho(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.request("GET", "/login?email="+url.QueryEscape(`"><script>x</script>`)+"&notice=<b>hi</b>", nil).want(200)
	body := string(e.request("GET", "/login?email="+url.QueryEscape(`"><script>x</script>`), nil).body)
	if strings.Contains(body, "<script>x") {
		t.Fatal("the prefilled email is not escaped")
	}
	if strings.Contains(string(e.request("GET", "/login?notice=<b>hi</b>", nil).body), "<b>hi") {
		t.Fatal("an arbitrary notice was shown")
	}
}
