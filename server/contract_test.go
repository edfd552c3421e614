package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"secutil/server"
	"secutil/store"
	"secutil/tools/apikey"
	"secutil/tools/breach"
	"secutil/tools/webhooksig"
)

// contractURL names the OpenAPI document for the schema compiler; its
// schemas' $refs ("#/components/schemas/X") resolve inside it.
const contractURL = "https://secutil.invalid/openapi.json"

// contract is static/openapi.json as a test holds live responses to it:
// every response must match an operation's documented status, media type
// and schema (JSON Schema 2020-12, as OpenAPI 3.1 says).
type contract struct {
	doc      map[string]any
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
	ops      []contractOp
	answered map[string][]int // "POST /api/base64" pattern → statuses seen
}

// contractOp is one operation at one of its servers.
type contractOp struct {
	method, key, full string // "post", "/api/v1/base64" (its path in the document), "/api/base64"
	match             *regexp.Regexp
	templated         bool
	pointer           string   // JSON pointer of the operation in the document
	targets           []string // full with its parameters set: each enum value, or the example
}

func loadContract(t testing.TB) *contract {
	t.Helper()
	raw, err := os.ReadFile("../static/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := &contract{doc: doc, compiler: jsonschema.NewCompiler(), schemas: map[string]*jsonschema.Schema{}, answered: map[string][]int{}}
	c.compiler.DefaultDraft(jsonschema.Draft2020)
	if err := c.compiler.AddResource(contractURL, value); err != nil {
		t.Fatal(err)
	}
	rootServers := doc["servers"].([]any)
	for key, v := range doc["paths"].(map[string]any) {
		item := v.(map[string]any)
		servers := rootServers
		if s, ok := item["servers"]; ok {
			servers = s.([]any)
		}
		// The same route at other paths (/api/base64 for /api/v1/base64).
		aliases, _ := item["x-aliases"].([]any)
		for method := range item {
			if method == "servers" || method == "parameters" || method == "summary" || method == "description" || method == "x-aliases" {
				continue
			}
			var fulls []string
			for _, s := range servers {
				server := strings.TrimSuffix(s.(map[string]any)["url"].(string), "/")
				fulls = append(fulls, server+key)
				for _, alias := range aliases {
					fulls = append(fulls, server+alias.(string))
				}
			}
			for _, full := range fulls {
				pattern, targets := regexp.QuoteMeta(full), []string{full}
				for _, p := range pathParameters(item) {
					placeholder := "{" + p.Name + "}"
					alternatives := []string{`[^/]+`}
					values := []string{p.Example}
					if len(p.Schema.Enum) > 0 {
						alternatives, values = p.Schema.Enum, p.Schema.Enum
					}
					pattern = strings.Replace(pattern, regexp.QuoteMeta(placeholder), "(?:"+strings.Join(alternatives, "|")+")", 1)
					var filled []string
					for _, target := range targets {
						for _, v := range values {
							filled = append(filled, strings.Replace(target, placeholder, v, 1))
						}
					}
					targets = filled
				}
				c.ops = append(c.ops, contractOp{
					method: method, key: key, full: full,
					match:     regexp.MustCompile("^" + pattern + "$"),
					templated: strings.Contains(key, "{"),
					pointer:   "/paths/" + escapePointer(key) + "/" + method,
					targets:   targets,
				})
			}
		}
	}
	return c
}

type pathParameter struct {
	Name, In, Example string
	Schema            struct{ Enum []string }
}

// pathParameters are the path parameters a path item declares.
func pathParameters(item map[string]any) []pathParameter {
	raw, _ := json.Marshal(item["parameters"])
	var params []pathParameter
	json.Unmarshal(raw, &params)
	return slices.DeleteFunc(params, func(p pathParameter) bool { return p.In != "path" })
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// at is the document's value at a JSON pointer.
func (c *contract) at(pointer string) any {
	var v any = c.doc
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	return v
}

// deref follows a $ref of a response object.
func (c *contract) deref(pointer string) string {
	for {
		m, _ := c.at(pointer).(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return pointer
		}
		pointer = strings.TrimPrefix(ref, "#")
	}
}

func (c *contract) schema(t testing.TB, pointer string) *jsonschema.Schema {
	t.Helper()
	if s, ok := c.schemas[pointer]; ok {
		return s
	}
	loc := contractURL + "#" + strings.NewReplacer("{", "%7B", "}", "%7D").Replace(pointer)
	s, err := c.compiler.Compile(loc)
	if err != nil {
		t.Fatalf("schema %s: %v", pointer, err)
	}
	c.schemas[pointer] = s
	return s
}

// operations are the operations whose URL matches path, concrete paths
// first (as the router prefers them).
func (c *contract) operations(path string) []contractOp {
	var found []contractOp
	for _, op := range c.ops {
		if op.match.MatchString(path) {
			found = append(found, op)
		}
	}
	if slices.ContainsFunc(found, func(op contractOp) bool { return !op.templated }) {
		found = slices.DeleteFunc(found, func(op contractOp) bool { return op.templated })
	}
	return found
}

// check holds one live response to the document.
func (c *contract) check(t testing.TB, method, target string, res response) {
	t.Helper()
	path, _, _ := strings.Cut(target, "?")
	what := fmt.Sprintf("%s %s → %d", method, target, res.status)
	ops := c.operations(path)
	if len(ops) == 0 {
		// No documented path: the router's 404 for every unknown path.
		if res.status != http.StatusNotFound {
			t.Errorf("%s: the path is not in the OpenAPI document", what)
			return
		}
		c.validate(t, what, "/components/responses/E404", res)
		return
	}
	i := slices.IndexFunc(ops, func(op contractOp) bool { return op.method == strings.ToLower(method) })
	if i < 0 {
		i = 0 // another method: the path's operations document its 405
		if res.status != http.StatusMethodNotAllowed {
			t.Errorf("%s: %s is not documented on %s", what, method, path)
		}
	} else {
		pattern := strings.ToUpper(ops[i].method) + " " + ops[i].full
		c.answered[pattern] = append(c.answered[pattern], res.status)
	}
	responses := ops[i].pointer + "/responses" // must hold the status
	status := strconv.Itoa(res.status)
	if c.at(responses+"/"+escapePointer(status)) == nil {
		t.Errorf("%s: status %d is not documented (body %.120q)", what, res.status, res.body)
		return
	}
	c.validate(t, what, c.deref(responses+"/"+status), res)
}

// validate holds a response to the response object at pointer: its media
// type must be listed, and its body must match that media type's schema.
func (c *contract) validate(t testing.TB, what, pointer string, res response) {
	t.Helper()
	content, _ := c.at(pointer + "/content").(map[string]any)
	if len(content) == 0 {
		if len(res.body) > 0 && res.status != http.StatusSeeOther {
			t.Errorf("%s: documented without a body, sent %.200q", what, res.body)
		}
		return
	}
	media, _, _ := strings.Cut(res.header.Get("Content-Type"), ";")
	media = strings.TrimSpace(media)
	if _, ok := content[media]; !ok {
		keys := make([]string, 0, len(content))
		for k := range content {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Errorf("%s: Content-Type %q is not documented (%v); body %.120q", what, media, keys, res.body)
		return
	}
	schemaAt := pointer + "/content/" + escapePointer(media) + "/schema"
	if c.at(schemaAt) == nil {
		t.Errorf("%s: %s has no schema", what, media)
		return
	}
	var instance any = string(res.body)
	if media == "application/json" {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.body))
		if err != nil {
			t.Errorf("%s: body is not JSON: %v", what, err)
			return
		}
		instance = v
	}
	if err := c.schema(t, schemaAt).Validate(instance); err != nil {
		t.Errorf("%s: body does not match %s: %#v\nbody: %.300q", what, schemaAt, err, res.body)
	}
}

// The limits of /hash_lookup and /password_audit on the contract test's
// server (serve's -hash-lookup-batch and -audit-dump-size).
const (
	contractLookupBatch = 5
	contractDumpBytes   = 4096
)

// contractCase is one request of the contract test.
type contractCase struct {
	method, path string
	body         any
	headers      []string
	want         int // the status the case is meant to meet, when it says
}

// TestContract sends representative requests to every route of the
// document, success and each class of error, and holds every answer to
// static/openapi.json.
func TestContract(t *testing.T) {
	t.Parallel()
	c := loadContract(t)
	e := rangeEnv(t, server.RangeKey, withAdminToken, withBilling, func(d *server.Deps) {
		d.MetricsToken = "metrics-token"
		d.AllowedHosts = []string{"example.com"}
		d.Registration = server.RegistrationOpen
		d.BreachNTLM = breach.NewFileSource(d.Range.NTLM)
		// The batch limits low, so that a batch past them is small.
		d.HashLookupBatch = contractLookupBatch
		d.AuditDumpBytes = contractDumpBytes
	})
	key := e.key("ann@example.com", store.PlanPro)
	session := e.login("ann@example.com")
	admin := e.adminSession("boss@example.com")
	e.account("carl@example.com", store.PlanStarter)
	starter := e.key("dora@example.com", store.PlanStarter)
	e.fill(accountID(t, e, "dora@example.com"), 100)
	e.createProduct(store.PlanEnterprise, 99900)

	// Each request comes from an address of its own, so the per-IP limits
	// of the account forms answer only the cases meant to meet them.
	peer := 0
	sendTo := func(e *env, tc contractCase) {
		t.Helper()
		peer++
		headers := append([]string{"RemoteAddr", fmt.Sprintf("10.%d.%d.1:1234", peer/250, peer%250)}, tc.headers...)
		res := e.request(tc.method, tc.path, tc.body, headers...)
		if tc.want != 0 && res.status != tc.want {
			t.Errorf("%s %s: status %d, want %d (%.120q)", tc.method, tc.path, res.status, tc.want, res.body)
		}
		c.check(t, tc.method, tc.path, res)
	}
	send := func(tc contractCase) { t.Helper(); sendTo(e, tc) }
	auth := func(path string) []string {
		switch {
		case rotates(path):
			return nil // the explicit cases below call these with credentials to spare
		case strings.HasPrefix(path, "/boss/"):
			return []string{"Authorization", "Bearer " + adminToken}
		case strings.HasPrefix(path, "/admin"):
			return []string{"Cookie", admin}
		case path == "/metrics":
			return []string{"Authorization", "Bearer metrics-token"}
		}
		return []string{"X-API-Key", key, "Cookie", session}
	}

	// Every documented operation, through the error classes every route
	// shares: no credentials, a wrong method, a host the server does not
	// answer for; and for a POST a malformed body, a body of another type,
	// one over 1 MiB, and a browser's cross-site post.
	oversized := strings.Repeat("x", 2<<20)
	for _, op := range c.ops {
		method := strings.ToUpper(op.method)
		for _, path := range op.targets {
			send(contractCase{method: method, path: path})
			send(contractCase{method: http.MethodPut, path: path, headers: auth(path), want: http.StatusMethodNotAllowed})
			send(contractCase{method: method, path: path, headers: append(auth(path), "Host", "evil.example"), want: http.StatusMisdirectedRequest})
			if method != http.MethodPost {
				send(contractCase{method: method, path: path, headers: auth(path)})
				continue
			}
			send(contractCase{method: method, path: path, body: `{"`, headers: append(auth(path), "Content-Type", "application/json")})
			send(contractCase{method: method, path: path, body: `<x/>`, headers: append(auth(path), "Content-Type", "text/xml")})
			send(contractCase{method: method, path: path, body: `{"text":"` + oversized + `"}`, headers: append(auth(path), "Content-Type", "application/json")})
			crossSite := http.StatusForbidden
			if path == "/billing/payments/webhook" {
				crossSite = 0 // server to server, signed: no browser's request
			}
			send(contractCase{method: method, path: path, body: `{}`, headers: append(auth(path), "Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"), want: crossSite})
			send(contractCase{method: method, path: path, body: `{}`, headers: append(auth(path), "Content-Type", "application/json")})
			send(contractCase{method: method, path: path, body: "a=b", headers: append(auth(path), "Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html")})
		}
	}

	// Success, and the errors of each route's own.
	for _, tc := range contractCases(t, c, e, key, starter, session, admin) {
		send(tc)
	}
	send(contractCase{method: "GET", path: "/no/such/route"})
	send(contractCase{method: "GET", path: "/no/such/route", headers: []string{"Accept", "text/html"}})

	// The emailed codes of registration and reset.
	send(contractCase{method: "POST", path: "/register", body: map[string]string{"email": "flow@example.com", "password": testPassword}})
	send(contractCase{method: "POST", path: "/register/verify", body: map[string]string{"email": "flow@example.com", "code": e.mail.lastCode(t, "flow@example.com"), "password": testPassword}})
	send(contractCase{method: "POST", path: "/forgot-password", body: map[string]string{"email": "flow@example.com"}})
	send(contractCase{method: "POST", path: "/forgot-password/verify", body: map[string]string{"email": "flow@example.com", "code": e.mail.resetCode(t, "flow@example.com"), "new_password": testPassword + "!"}})

	// A server before its first administrator, with invites and a public
	// range API: setup, invites and the range API's browser preflight.
	first := rangeEnv(t, server.RangePublic, withAdminToken, func(d *server.Deps) { d.Registration = server.RegistrationInvite })
	token := apikey.NewToken()
	if err := first.store.SetSetupToken(t.Context(), apikey.Hash(token)); err != nil {
		t.Fatal(err)
	}
	sendTo(first, contractCase{method: "GET", path: "/setup?token=" + token})
	sendTo(first, contractCase{method: "POST", path: "/setup", body: map[string]string{"token": token, "email": "boss@example.com", "password": testPassword}})
	for _, tc := range []contractCase{
		{method: "POST", path: "/boss/invites/create", headers: []string{"Authorization", "Bearer " + adminToken}},
		{method: "POST", path: "/admin/invites", body: "", headers: []string{"Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html", "Cookie", first.login("boss@example.com")}},
		{method: "GET", path: "/register"},
		{method: "POST", path: "/register", body: map[string]string{"email": "new@example.com", "password": testPassword}},
		{method: "OPTIONS", path: "/range/5BAA6", headers: []string{"Origin", "https://app.example", "Access-Control-Request-Method", "GET"}},
		{method: "GET", path: "/range/5BAA6"},
	} {
		sendTo(first, tc)
	}
	invites := first.post("/boss/invites/list", nil, "Authorization", "Bearer "+adminToken).want(http.StatusOK).json()["items"].([]any)
	if len(invites) < 2 {
		t.Fatalf("live invites %v, want the two just created", invites)
	}
	sendTo(first, contractCase{method: "POST", path: "/boss/invites/revoke", body: map[string]any{"id": invites[0].(map[string]any)["id"]}, headers: []string{"Authorization", "Bearer " + adminToken}, want: http.StatusOK})
	sendTo(first, contractCase{method: "POST", path: "/admin/invites/revoke", body: "id=" + invites[1].(map[string]any)["id"].(string), headers: []string{"Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html", "Cookie", first.login("boss@example.com")}, want: http.StatusSeeOther})

	// A server with what is optional left out: no metrics token, the range
	// API off, no billing, no server key; then its database gone.
	bare := newEnv(t, func(d *server.Deps) {
		d.Range = server.RangeAPI{Access: server.RangeOff}
		d.ServerKey = nil
	})
	bareSession := bare.adminSession("boss@example.com")
	bareKey := []string{"X-API-Key", bare.key("ivy@example.com", store.PlanPro)}
	for _, tc := range []contractCase{
		{method: "POST", path: "/api/v1/data_breach", body: map[string]any{"ntlm": []string{ntlmPassword}}, headers: bareKey, want: 400},
		{method: "POST", path: "/api/v1/password_audit", body: map[string]string{"dump": auditDump()}, headers: bareKey, want: 200},
		{method: "GET", path: "/metrics", want: 404},
		{method: "GET", path: "/range/5BAA6", want: 503},
		{method: "POST", path: "/billing/create_checkout_session", body: map[string]string{"plan": "pro"}, headers: []string{"Cookie", bareSession}, want: 503},
		{method: "POST", path: "/billing/payments/webhook", body: `{}`, want: 503},
		{method: "POST", path: "/switch_tier", body: map[string]string{"plan": "pro"}, headers: []string{"Cookie", bareSession}, want: 503},
		{method: "POST", path: "/boss/decrypt_geoinfo2", body: map[string]string{"sealed": "x"}, headers: []string{"Cookie", bareSession}, want: 503},
		{method: "POST", path: "/boss/invites/create", headers: []string{"Cookie", bareSession}, want: 409},
	} {
		sendTo(bare, tc)
	}
	bare.store.Close()
	sendTo(bare, contractCase{method: "GET", path: "/health", want: 503})

	etag := e.request("GET", "/static/app.css", nil).want(http.StatusOK).header.Get("ETag")
	send(contractCase{method: "GET", path: "/static/app.css", headers: []string{"If-None-Match", etag}, want: http.StatusNotModified})

	// Every operation answered at least once with success.
	for _, op := range c.ops {
		pattern := strings.ToUpper(op.method) + " " + op.full
		statuses := c.answered[pattern]
		if !slices.ContainsFunc(statuses, func(s int) bool { return s < 400 }) {
			t.Errorf("%s never succeeded in the contract test (statuses %v)", pattern, statuses)
		}
	}
}

// rotates reports the routes that replace the credential they are called
// with (or end the session).
func rotates(path string) bool {
	return strings.HasSuffix(path, "/new_api_key") || strings.HasSuffix(path, "/regenerate") ||
		strings.HasSuffix(path, "/get_api_key") || path == "/logout"
}

func accountID(t testing.TB, e *env, email string) int64 {
	t.Helper()
	a, err := e.store.AccountByEmail(t.Context(), email)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// contractCases are the requests of each route's own answers: success,
// and the errors only it gives.
func contractCases(t testing.TB, c *contract, e *env, key, starter, session, admin string) []contractCase {
	k := []string{"X-API-Key", key}
	form := func(headers ...string) []string {
		return append([]string{"Content-Type", "application/x-www-form-urlencoded", "Accept", "text/html"}, headers...)
	}
	boss := []string{"Authorization", "Bearer " + adminToken}
	var cases []contractCase
	api := func(path string, body any, headers ...string) {
		for _, scope := range []string{"/api", "/api/v1"} {
			cases = append(cases, contractCase{method: "POST", path: scope + path, body: body, headers: headers})
		}
	}
	// Utilities: the example of each one's operation (so a new utility is
	// covered by its declaration alone), the cases below, a missing field, a
	// wrong type, the plan's limit.
	moreCases := map[string][]any{
		"/base64": {map[string]string{"text": "aGk=", "option": "decode"}, map[string]string{"text": "%%%", "option": "decode"},
			map[string]string{"text": "/wD+", "option": "decode"}, map[string]string{"text": "/wD+", "option": "decode", "output": "base64url"}},
		"/generate_random_key": {nil, map[string]any{"length": 8}, map[string]string{"format": "alphanumeric"}},
		"/generate_password": {map[string]string{"mode": "passphrase", "case": "random"}, map[string]any{"length": 3},
			map[string]any{"mode": "passphrase", "words": 4, "digit": true}},
		"/jwt_verify": {map[string]string{"token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2ln", "key": "wrong"},
			map[string]string{"token": "a.b", "key": "k"}, map[string]string{"token": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2ln", "key": "{\"keys\": 1}"}},
		"/hash_verify": {map[string]string{"password": "x", "hash": "$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1"}, map[string]string{"password": "x", "hash": "nope"},
			map[string]string{"password": "x", "hash": "$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"}},
		"/jwt_decoder": {map[string]string{"token": "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIiwiZXhwIjoxfQ."},
			map[string]string{"token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"}, map[string]string{"token": "a.b"}},
		"/json_format":    {map[string]string{"text": `{"a":[1,2]}`}, map[string]string{"text": `{"a":`}, map[string]string{"text": strings.Repeat("[", 600)}},
		"/json_minify":    {map[string]string{"text": `{ "a" : 1 }`}},
		"/suggestion":     {map[string]string{"message": "dark mode"}, map[string]string{"message": " "}},
		"/secure_encrypt": {map[string]string{"text": "hi", "password": "pw"}},
		"/secure_decrypt": {map[string]string{"text": "AAAA", "password": "pw"}},
		"/ip_info":        {map[string]string{"ip_string": "81.2.69.160"}, map[string]string{"ip_string": "10.0.0.1"}, map[string]string{"ip_string": "nope"}},
		"/password_check": {map[string]string{"password": "Tr0ub4dor&3"}},
		"/entropy":        {map[string]string{"password": "Tr0ub4dor&3"}},
		"/common_pwd":     {map[string]string{"password": "letmein"}},
		"/data_breach": {map[string]string{"password": "password"}, map[string]string{"prefix": "5BAA6"}, map[string]string{"ntlm": strings.Repeat("a", 32)}, map[string]string{},
			map[string]any{"sha1": []string{strings.ToUpper(sha1Password), strings.Repeat("0", 40)}},
			map[string]any{"ntlm": []string{ntlmPassword, strings.Repeat("a", 32)}},
			expect{map[string]any{"sha1": []string{sha1Password, "zz"}}, http.StatusBadRequest},
			expect{map[string]any{"ntlm": []string{}}, http.StatusBadRequest},
			expect{map[string]any{"sha1": distinctHashes(1001, 40)}, http.StatusBadRequest}},
		"/hash_generator": {map[string]string{"algorithm": "sha256", "plaintext": "abc"}, map[string]string{"algorithm": "rot13", "plaintext": "x"},
			map[string]any{"algorithm": "bcrypt", "plaintext": "x", "cost": 4}, map[string]any{"algorithm": "md5", "plaintext": "x", "cost": 4}},
		"/hash_identifier": {map[string]string{"hash": md5Password}, map[string]string{"hash": "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"}, map[string]any{"hashes": []string{md5Password, "abc"}}, map[string]string{"hash": "user@example.com"},
			map[string]string{"hashes": md5Password + "\n" + sha1Password + ", " + ntlmPassword + "; $1$saltstri$YMyguxXMBpd2TEZ.vS/3q1"},
			map[string]string{"hash": emptyLM + ":" + ntlmPassword}, map[string]string{"hash": pwdumpLine}, map[string]string{"hash": "bob:" + sha1Password},
			expect{map[string]string{"hashes": " ,; "}, http.StatusBadRequest},
			expect{map[string]any{"hashes": distinctHashes(501, 32)}, http.StatusBadRequest}},
		"/hash_lookup": {map[string]string{"hashes": md5Password + ",zz"}, map[string]string{"hashes": md5Password},
			map[string]string{"hashes": "bob:" + md5Password}, map[string]string{"hashes": pwdumpLine},
			map[string]any{"hashes": []string{md5Password, "bob:" + sha1Password, pwdumpLine, "nothex", "dave:$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1", "abcd", "carol:"}},
			expect{map[string]string{"hashes": "nothex, zz\nbob:$1$saltstri$YMyguxXMBpd2TEZ.vS/3q1"}, http.StatusBadRequest},
			expect{map[string]any{"hashes": distinctHashes(contractLookupBatch+1, 32)}, http.StatusBadRequest}},
		"/password_audit": {map[string]string{"dump": auditDump()}, map[string]any{"dump": auditDump(), "show_plaintext": true},
			map[string]string{"dump": "no line here\nis an account"},
			expect{map[string]string{"dump": strings.Repeat("#", contractDumpBytes+1)}, http.StatusRequestEntityTooLarge}},
	}
	utilities := map[string][]any{}
	for _, op := range c.ops {
		tags, _ := c.at(op.pointer + "/tags").([]any)
		name := strings.TrimPrefix(op.full, "/api/v1")
		if !strings.HasPrefix(op.full, "/api/v1/") || !slices.Contains(tags, any("utilities")) || name == "/hash_lookup_site" {
			continue
		}
		var example any // a utility that reads no body has none
		if ex, ok := c.at(op.pointer + "/requestBody/content/application~1json/example").(map[string]any); ok {
			example = stringFields(ex)
		}
		utilities[name] = append([]any{example}, moreCases[name]...)
	}
	for path := range moreCases {
		if utilities[path] == nil {
			t.Errorf("contract cases for %s, which is not a utility of the document", path)
		}
	}
	for path, bodies := range utilities {
		for _, body := range bodies {
			if e, ok := body.(expect); ok {
				for _, scope := range []string{"/api", "/api/v1"} {
					cases = append(cases, contractCase{method: "POST", path: scope + path, body: e.body, headers: k, want: e.status})
				}
				body = e.body
			} else {
				api(path, body, k...)
			}
			// The tools page's root variant: JSON, and a browser's form.
			cases = append(cases, contractCase{method: "POST", path: path, body: body, headers: []string{"Cookie", session}})
			if m, ok := body.(map[string]string); ok {
				values := url.Values{}
				for name, v := range m {
					values.Set(name, v)
				}
				cases = append(cases, contractCase{method: "POST", path: path, body: values.Encode(), headers: form("Cookie", session)})
			}
		}
		api(path, `{"text": 5, "password": 5, "token": 5, "hashes": 5, "hash": 5, "ip_string": 5, "message": 5, "algorithm": 5}`, k...)
		api(path, `{"x": 1}`, k...)
		api(path, `{"x": 1}`, "X-API-Key", starter)
	}
	cases = append(cases, contractCase{method: "POST", path: "/hash_lookup", body: url.Values{"hashes": {md5Password}, "format": {"csv"}}.Encode(), headers: form("Cookie", session)})
	api("/hash_lookup_site", map[string]string{"hashes": md5Password})
	api("/hash_lookup_site", map[string]string{"hashes": "zz"})
	api("/hash_lookup_site", `{}`)

	// Account routes.
	// (as other accounts than ann's: her key and session serve the rest)
	api("/get_api_key", map[string]string{"email": "carl@example.com", "password": testPassword})
	api("/get_api_key", map[string]string{"email": "carl@example.com", "password": "wrong"})
	api("/get_api_key", map[string]string{"email": "carl@example.com"})
	cases = append(cases,
		contractCase{method: "POST", path: "/api/new_api_key", headers: []string{"X-API-Key", e.key("eve@example.com", store.PlanPro)}},
		contractCase{method: "POST", path: "/api/v1/new_api_key", headers: []string{"X-API-Key", e.key("fay@example.com", store.PlanPro)}})
	sealed := e.post("/api/secure_encrypt", map[string]string{"text": "hi", "password": "pw"}, k...).want(http.StatusOK).json()["result"].(string)
	api("/secure_decrypt", map[string]string{"text": sealed, "password": "pw"}, k...)
	api("/secure_decrypt", map[string]string{"text": sealed, "password": "wrong"}, k...)
	api("/regenerate", nil, "Cookie", e.login("carl@example.com"))
	api("/user_info", nil, k...)

	// Account forms, JSON and browser.
	for _, f := range []struct {
		path string
		body map[string]string
	}{
		{"/login", map[string]string{"email": "ann@example.com", "password": testPassword}},
		{"/login", map[string]string{"email": "ann@example.com", "password": "wrong"}},
		{"/login", map[string]string{"email": "carl@example.com"}},
		{"/register", map[string]string{"email": "new@example.com", "password": testPassword}},
		{"/register", map[string]string{"email": "new2@example.com", "password": "short"}},
		{"/register/verify", map[string]string{"email": "new@example.com", "code": "123456", "password": testPassword}},
		{"/forgot-password", map[string]string{"email": "ann@example.com"}},
		{"/forgot-password/verify", map[string]string{"email": "ann@example.com", "code": "123456", "new_password": testPassword + "x"}},
		{"/setup", map[string]string{"token": "wrong", "email": "x@example.com", "password": testPassword}},
	} {
		cases = append(cases, contractCase{method: "POST", path: f.path, body: f.body})
		values := url.Values{}
		for name, v := range f.body {
			values.Set(name, v)
		}
		cases = append(cases, contractCase{method: "POST", path: f.path, body: values.Encode(), headers: form()})
	}
	cases = append(cases,
		contractCase{method: "POST", path: "/password_check/preview", body: map[string]string{"password": "hunter2"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/logout", headers: []string{"Cookie", e.login("carl@example.com")}},
		contractCase{method: "POST", path: "/logout", body: "", headers: form("Cookie", e.login("carl@example.com"))},
	)

	// Pages.
	for _, page := range []string{"/", "/login", "/register", "/register/verify", "/forgot-password", "/forgot-password/verify", "/tools", "/docs", "/docs/", "/docs/errors", "/api-docs", "/health", "/robots", "/robots.txt", "/setup", "/setup?token=wrong", "/dashboard", "/account", "/static/app.js", "/static/favicon.svg", "/static/openapi.json", "/static/nope.css"} {
		cases = append(cases, contractCase{method: "GET", path: page})
		cases = append(cases, contractCase{method: "GET", path: page, headers: []string{"Cookie", session, "Accept", "text/html"}})
	}
	cases = append(cases, contractCase{method: "GET", path: "/static/app.css", headers: []string{"If-None-Match", `"nope"`}})

	// Dashboard key forms.
	cases = append(cases,
		contractCase{method: "POST", path: "/dashboard/keys", body: map[string]string{"name": "ci"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/dashboard/keys", body: map[string]string{"name": "ci"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/dashboard/keys", body: "name=web", headers: form("Cookie", session)},
		contractCase{method: "POST", path: "/dashboard/keys/rotate", body: map[string]string{"name": "ci"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/dashboard/keys/revoke", body: map[string]string{"name": "ci"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/dashboard/keys/revoke", body: map[string]string{"name": "ci"}, headers: []string{"Cookie", session}},
	)

	// Account page forms, each for an account of its own.
	e.account("gus@example.com", store.PlanStarter)
	e.account("hal@example.com", store.PlanStarter)
	cases = append(cases,
		contractCase{method: "POST", path: "/account/password", body: "current_password=wrong+password&new_password=x", headers: form("Cookie", e.login("gus@example.com"))},
		contractCase{method: "POST", path: "/account/password", body: map[string]any{"current_password": testPassword, "new_password": newTestPassword}, headers: []string{"Cookie", e.login("gus@example.com")}},
		contractCase{method: "POST", path: "/account/delete", body: map[string]any{"password": testPassword}, headers: []string{"Cookie", e.login("hal@example.com")}},
	)

	// Range and metrics.
	prefix, _ := hexOf(breach.KindSHA1, "password")
	for _, h := range [][]string{k, {"hibp-api-key", key}, {"hibp-api-key", key, "Add-Padding", "true"}, {"X-API-Key", "sk_wrong"}} {
		cases = append(cases, contractCase{method: "GET", path: "/range/" + prefix, headers: h})
	}
	cases = append(cases,
		contractCase{method: "GET", path: "/range/" + prefix + "?mode=ntlm", headers: k},
		contractCase{method: "GET", path: "/range/" + prefix + "?mode=md5", headers: k},
		contractCase{method: "GET", path: "/range/XYZ12", headers: k},
		contractCase{method: "GET", path: "/range/" + prefix, headers: []string{"X-API-Key", key, "If-None-Match", "*"}},
		contractCase{method: "OPTIONS", path: "/range/" + prefix, headers: []string{"Origin", "https://app.example", "Access-Control-Request-Method", "GET"}},
		contractCase{method: "GET", path: "/metrics", headers: []string{"Authorization", "Bearer metrics-token"}},
		contractCase{method: "GET", path: "/metrics", headers: []string{"Authorization", "Bearer wrong"}},
	)

	// Billing.
	cases = append(cases,
		contractCase{method: "POST", path: "/switch_tier", body: map[string]string{"plan": "starter"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/switch_tier", body: map[string]string{"plan": "enterprise"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/switch_tier", body: "plan=gold", headers: form("Cookie", session)},
		contractCase{method: "POST", path: "/billing/create_checkout_session", body: map[string]string{"plan": "enterprise"}, headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/billing/create_checkout_session", body: map[string]string{"plan": "pro"}, headers: []string{"Cookie", session}},
	)
	for _, body := range [][]byte{
		event("evt_c1", "subscription.renewed", map[string]any{"email": "ann@example.com", "paid_until": "2030-01-01T00:00:00Z"}),
		event("evt_c1", "subscription.renewed", map[string]any{"email": "ann@example.com", "paid_until": "2030-01-01T00:00:00Z"}),
		event("", "subscription.renewed", nil),
	} {
		cases = append(cases, contractCase{method: "POST", path: "/billing/payments/webhook", body: body, headers: webhookHeaders(body)})
	}
	cases = append(cases, contractCase{method: "POST", path: "/billing/payments/webhook", body: `{}`, headers: []string{"Secutil-Signature", "t=1,v1=00"}})

	// Administration, JSON and the admin page's forms.
	cases = append(cases,
		contractCase{method: "POST", path: "/boss/payments/create_product", body: map[string]any{"name": "Pro", "plan": "pro", "price_cents": 900, "currency": "EUR", "interval": "month"}, headers: boss},
		contractCase{method: "POST", path: "/boss/payments/create_product", body: map[string]any{"name": "Pro", "plan": "pro", "price_cents": "9"}, headers: boss},
		contractCase{method: "POST", path: "/boss/accounts/list", body: map[string]any{"limit": 2}, headers: boss},
		contractCase{method: "POST", path: "/boss/accounts/list", body: map[string]any{"limit": 0}, headers: boss},
		contractCase{method: "POST", path: "/boss/accounts/set_plan", body: map[string]any{"email": "carl@example.com", "plan": "enterprise", "usage_cap": 5000}, headers: boss},
		contractCase{method: "POST", path: "/boss/accounts/set_plan", body: map[string]any{"email": "nobody@example.com", "plan": "pro"}, headers: boss},
		contractCase{method: "POST", path: "/boss/suggestions/list", body: map[string]any{}, headers: boss},
		contractCase{method: "POST", path: "/boss/audit/list", body: map[string]any{"limit": 5}, headers: boss},
		contractCase{method: "POST", path: "/boss/decrypt_geoinfo2", body: map[string]string{"sealed": "nope"}, headers: boss},
		contractCase{method: "POST", path: "/boss/invites/create", headers: boss},
		contractCase{method: "POST", path: "/boss/accounts/list", body: map[string]any{}, headers: []string{"Cookie", session}},
		contractCase{method: "GET", path: "/admin", headers: []string{"Cookie", admin}},
		contractCase{method: "GET", path: "/admin", headers: []string{"Cookie", session}},
		contractCase{method: "POST", path: "/admin/accounts/set_plan", body: "email=carl%40example.com&plan=pro", headers: form("Cookie", admin)},
		contractCase{method: "POST", path: "/admin/products", body: "name=Ent&plan=enterprise&price_cents=100&currency=EUR&interval=year", headers: form("Cookie", admin)},
		contractCase{method: "POST", path: "/admin/invites", body: "", headers: form("Cookie", admin)},
		contractCase{method: "POST", path: "/boss/payments/list_products", headers: boss},
		contractCase{method: "POST", path: "/boss/payments/update_product", body: map[string]any{"id": 1, "name": "Ent", "plan": "enterprise", "price_cents": 99000, "currency": "EUR", "interval": "year"}, headers: boss},
		contractCase{method: "POST", path: "/boss/payments/update_product", body: map[string]any{"id": 999, "name": "Ent", "plan": "enterprise", "price_cents": 99000, "currency": "EUR", "interval": "year"}, headers: boss, want: http.StatusNotFound},
		contractCase{method: "POST", path: "/admin/products/update", body: "id=1&name=Ent&plan=enterprise&price_cents=99900&currency=EUR&interval=year", headers: form("Cookie", admin)},
		contractCase{method: "POST", path: "/boss/invites/list", headers: boss},
		contractCase{method: "POST", path: "/boss/invites/revoke", body: map[string]string{"id": "00"}, headers: boss, want: http.StatusNotFound},
		contractCase{method: "POST", path: "/admin/invites/revoke", body: "id=00", headers: form("Cookie", admin), want: http.StatusSeeOther},
		contractCase{method: "POST", path: "/boss/payments/delete_product", body: map[string]any{"id": 999}, headers: boss, want: http.StatusNotFound},
		contractCase{method: "POST", path: "/admin/products/delete", body: "id=999", headers: form("Cookie", admin), want: http.StatusSeeOther},
		// The products created above by the route (2) and the form (3).
		contractCase{method: "POST", path: "/boss/payments/delete_product", body: map[string]any{"id": 2}, headers: boss, want: http.StatusOK},
		contractCase{method: "POST", path: "/admin/products/delete", body: "id=3", headers: form("Cookie", admin), want: http.StatusSeeOther},
	)
	if sealed := sealedAuditIP(t, e); sealed != "" {
		cases = append(cases, contractCase{method: "POST", path: "/boss/decrypt_geoinfo2", body: map[string]string{"sealed": sealed}, headers: boss})
	}
	for _, act := range []string{"verify", "make_admin", "remove_admin", "disable", "enable", "reset_usage", "delete"} {
		body := map[string]string{"email": "carl@example.com", "confirm": "carl@example.com"}
		cases = append(cases,
			contractCase{method: "POST", path: "/boss/accounts/" + act, body: body, headers: boss},
			contractCase{method: "POST", path: "/boss/accounts/" + act, body: map[string]string{"email": "nobody@example.com", "confirm": "nobody@example.com"}, headers: boss},
			contractCase{method: "POST", path: "/admin/accounts/" + act, body: "email=dora%40example.com&confirm=dora%40example.com", headers: form("Cookie", admin)},
			contractCase{method: "POST", path: "/admin/accounts/" + act, body: "email=nobody%40example.com&confirm=nobody%40example.com", headers: form("Cookie", admin), want: http.StatusSeeOther},
		)
	}
	// The last administrator stays one.
	for _, act := range []string{"remove_admin", "disable", "delete"} {
		cases = append(cases,
			contractCase{method: "POST", path: "/boss/accounts/" + act, body: map[string]string{"email": "boss@example.com", "confirm": "boss@example.com"}, headers: boss, want: http.StatusConflict},
			contractCase{method: "POST", path: "/admin/accounts/" + act, body: "email=boss%40example.com&confirm=boss%40example.com", headers: form("Cookie", admin), want: http.StatusSeeOther},
		)
	}
	return cases
}

// expect is a body of a moreCases list with the status its API answer
// must have: an error of the route's own, which a success would not show.
type expect struct {
	body   any
	status int
}

// Dump lines of the contract cases: the empty LM half, and a pwdump line
// of the NT hash of "password".
const (
	emptyLM    = "aad3b435b51404eeaad3b435b51404ee"
	pwdumpLine = "CORP\\alice:1104:" + emptyLM + ":" + ntlmPassword + ":::"
)

// distinctHashes is n different hex strings of length digits.
func distinctHashes(n, digits int) []string {
	hashes := make([]string, n)
	for i := range hashes {
		hashes[i] = fmt.Sprintf("%0*x", digits, i+1)
	}
	return hashes
}

// stringFields is m as map[string]string when every value is a string
// (so that a form can send it too), else m.
func stringFields(m map[string]any) any {
	fields := map[string]string{}
	for name, v := range m {
		s, ok := v.(string)
		if !ok {
			return m
		}
		fields[name] = s
	}
	return fields
}

// webhookHeaders signs body now with the test secret.
func webhookHeaders(body []byte) []string {
	return []string{"Content-Type", "application/json",
		webhooksig.HeaderName, webhooksig.Format(time.Now().Unix(), body, []byte(billingSecret))}
}

// sealedAuditIP is a sealed client IP of the audit log, if any.
func sealedAuditIP(t testing.TB, e *env) string {
	t.Helper()
	res := e.post("/boss/audit/list", map[string]any{"limit": 50}, "Authorization", "Bearer "+adminToken)
	var list struct {
		Items []struct {
			SealedIP string `json:"sealed_ip"`
		}
	}
	json.Unmarshal(res.body, &list)
	for _, it := range list.Items {
		if it.SealedIP != "" {
			return it.SealedIP
		}
	}
	return ""
}

// TestContractCoversEveryRoute holds the document's paths to the router's
// patterns, both ways. A path parameter with an enum (the tools page's
// POST /{tool}) stands for one route per value.
func TestContractCoversEveryRoute(t *testing.T) {
	t.Parallel()
	c := loadContract(t)
	documented := map[string]bool{}
	for _, op := range c.ops {
		if len(op.targets) > 1 {
			for _, target := range op.targets {
				documented[strings.ToUpper(op.method)+" "+target] = true
			}
			continue
		}
		documented[strings.ToUpper(op.method)+" "+op.full] = true
	}
	routed := map[string]bool{}
	for _, pattern := range server.RoutePatterns() {
		pattern = strings.TrimSuffix(pattern, "{$}")
		routed[pattern] = true
		if !documented[pattern] {
			t.Errorf("route %s is not in the OpenAPI document", pattern)
		}
	}
	for pattern := range documented {
		if !routed[pattern] {
			t.Errorf("the OpenAPI document names %s, which is not routed", pattern)
		}
	}
}

// TestRequiredFieldsAreRequired holds the request schemas' "required"
// lists to the server: each operation's example, less one required field,
// is a 400 missing_field that names it, on every route.
func TestRequiredFieldsAreRequired(t *testing.T) {
	t.Parallel()
	c := loadContract(t)
	e := newEnv(t, withAdminToken, withBilling)
	key := e.key("ann@example.com", store.PlanPro)
	session := e.login("ann@example.com")
	checked := 0
	for _, op := range c.ops {
		if op.method != "post" || strings.HasPrefix(op.full, "/api/") && !strings.HasPrefix(op.full, "/api/v1/") {
			continue // one scope is enough: both run the same handler
		}
		media, _ := c.at(op.pointer + "/requestBody/content/application~1json").(map[string]any)
		if media == nil {
			continue
		}
		schema := c.at(c.deref(op.pointer + "/requestBody/content/application~1json/schema")).(map[string]any)
		required, _ := schema["required"].([]any)
		if len(required) == 0 {
			continue
		}
		example, ok := media["example"].(map[string]any)
		if !ok {
			t.Errorf("%s %s: no example to send", op.method, op.full)
			continue
		}
		for _, field := range required {
			body := maps.Clone(example)
			delete(body, field.(string))
			raw, _ := json.Marshal(body)
			headers := []string{"X-API-Key", key, "Cookie", session, "Content-Type", "application/json"}
			switch {
			case strings.HasPrefix(op.full, "/boss/"):
				headers = []string{"Authorization", "Bearer " + adminToken}
			case op.full == "/billing/payments/webhook":
				headers = webhookHeaders(raw)
			}
			res := e.request(http.MethodPost, op.full, raw, headers...)
			var answer struct{ Error, Code string }
			json.Unmarshal(res.body, &answer)
			if strings.HasPrefix(res.header.Get("Content-Type"), "text/html") { // a form of the dashboard
				answer.Error, answer.Code = html.UnescapeString(string(res.body)), "missing_field"
			}
			if res.status != http.StatusBadRequest || answer.Code != "missing_field" || !strings.Contains(strings.ToLower(answer.Error), `field "`+field.(string)+`" is required`) {
				t.Errorf("POST %s without %s: %d %.200q, want 400 missing_field naming it", op.full, field, res.status, res.body)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("only %d required fields checked", checked)
	}
}

// TestDocumentedLimitsAreTheSettings holds what the document says of the
// settable batch limits to the server's constants: the default, the bound
// and the serve flag that sets each.
func TestDocumentedLimitsAreTheSettings(t *testing.T) {
	t.Parallel()
	c := loadContract(t)
	lookup := fmt.Sprintf("up to %d hashes by default, a setting of the server (serve -hash-lookup-batch, 1 to %d;", server.DefaultHashLookupBatch, server.MaxHashLookupBatch)
	dump := fmt.Sprintf("At most %d MiB by default, a setting of the server (serve -audit-dump-size, at most %d MiB)", server.DefaultAuditDumpBytes>>20, server.MaxAuditDumpBytes>>20)
	for _, d := range []struct{ pointer, want string }{
		{"/components/schemas/HashLookupBody/properties/hashes/description", lookup},
		{"/components/schemas/PasswordAuditRequest/properties/dump/description", dump},
		{"/paths/~1api~1v1~1password_audit/post/description", fmt.Sprintf("%d MiB by default, a setting of the server (serve -audit-dump-size", server.DefaultAuditDumpBytes>>20)},
	} {
		if text, _ := c.at(d.pointer).(string); !strings.Contains(text, d.want) {
			t.Errorf("%s is %q, want it to say %q", d.pointer, text, d.want)
		}
	}
}
