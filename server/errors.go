package server

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"

	"secutil/server/account"
	"secutil/store"
	"secutil/store/hashindex"
	"secutil/tools/breach"
	"secutil/tools/codec"
	"secutil/tools/geo"
	"secutil/tools/hashgen"
	"secutil/tools/hashverify"
	"secutil/tools/jsonfmt"
	"secutil/tools/jwt"
	"secutil/tools/passgen"
	"secutil/tools/passpolicy"
	"secutil/tools/pbe"
	"secutil/tools/seal"
	"secutil/tools/webhooksig"
)

// errorCode is one code of the API's error vocabulary and the status it
// always comes with. /docs/errors is rendered from errorCodes, and the
// OpenAPI document's Error schema lists the same codes (openapi.go makes
// that list from this table).
type errorCode struct {
	Name   string
	Status int
	When   template.HTML // what /docs/errors says about it
}

// errorCodes is the whole vocabulary, in the order /docs/errors lists it.
var errorCodes []*errorCode

func defineCode(name string, status int, when template.HTML) *errorCode {
	c := &errorCode{Name: name, Status: status, When: when}
	errorCodes = append(errorCodes, c)
	return c
}

var (
	codeInvalidRequest       = defineCode("invalid_request", http.StatusBadRequest, "malformed JSON (with the byte offset), a body that is not an object, a field whose value is out of bounds (named), or a body that ended before its <code>Content-Length</code> or arrived slower than 32 KiB a second after its first 2 seconds")
	codeMissingField         = defineCode("missing_field", http.StatusBadRequest, "a required field that is absent, null or blank (named)")
	codeInvalidField         = defineCode("invalid_field", http.StatusBadRequest, "a field of the wrong JSON type, such as a number where a string belongs (named)")
	codeUnknownField         = defineCode("unknown_field", http.StatusBadRequest, "a key of a utility's JSON body that is none of its fields (named, with the field it likely meant: <code>ip</code> for <code>ip_string</code>)")
	codeInvalidInput         = defineCode("invalid_input", http.StatusBadRequest, "input a tool cannot work on: bad base64, a malformed encryption envelope, plaintext a hash cannot take, a hash cost out of bounds, a hash to verify that is malformed or asks for more work than the bounds allow")
	codeInvalidJSON          = defineCode("invalid_json", http.StatusBadRequest, "<code>/json_format</code> or <code>/json_minify</code> text that is not JSON (with line and column)")
	codeInvalidJWT           = defineCode("invalid_jwt", http.StatusBadRequest, "a token that is not three base64url parts holding JSON objects")
	codeInvalidJWTKey        = defineCode("invalid_jwt_key", http.StatusBadRequest, "a <code>/jwt_verify</code> key that is no HMAC secret, PEM public key or certificate, JWK or JWKS, or a private key, or a key type or size not supported")
	codeTooDeeplyNested      = defineCode("too_deeply_nested", http.StatusBadRequest, "JSON (of <code>/json_format</code>, <code>/json_minify</code>, or a token's header or payload) nested deeper than 512 levels of arrays and objects")
	codeOutputTooLarge       = defineCode("output_too_large", http.StatusBadRequest, "JSON whose formatted answer would pass 4 times the input or 1 MiB, whichever is larger")
	codeInvalidIP            = defineCode("invalid_ip", http.StatusBadRequest, "an <code>ip_string</code> that is not one IPv4 or IPv6 address")
	codeInvalidHashInput     = defineCode("invalid_hash_input", http.StatusBadRequest, "a hash lookup or identifier batch with no hashes or more than its limit (/hash_identifier: 500; /hash_lookup: 500 by default, serve -hash-lookup-batch), or a lookup token that is not a hash it can look up (named)")
	codeUnknownAlgorithm     = defineCode("unknown_algorithm", http.StatusBadRequest, "a hash algorithm the generator does not know; the message lists the allowed ones")
	codeUnsupportedHash      = defineCode("unsupported_hash", http.StatusBadRequest, "a <code>/hash_verify</code> hash in no scheme it can verify; the message lists the ones it can")
	codeDecryptionFailed     = defineCode("decryption_failed", http.StatusBadRequest, "a wrong password or altered text (the same answer for both)")
	codeRangeTooLarge        = defineCode("range_too_large", http.StatusBadRequest, "a breach range query whose prefix holds more entries than a Pwned Passwords file can honestly have")
	codeNTLMNotConfigured    = defineCode("ntlm_not_configured", http.StatusBadRequest, "an NTLM breach query on a server started without <code>-breach-file-ntlm</code>")
	codeInvalidPrefix        = defineCode("invalid_prefix", http.StatusBadRequest, "a <code>GET /range</code> prefix that is not 5 hex digits")
	codeInvalidMode          = defineCode("invalid_mode", http.StatusBadRequest, "a <code>GET /range</code> mode other than <code>sha1</code> or <code>ntlm</code>")
	codeWeakPassword         = defineCode("weak_password", http.StatusBadRequest, "an account password refused by the policy; the message says why")
	codeInvalidMessageLength = defineCode("invalid_message_length", http.StatusBadRequest, "a suggestion outside 1 to 5000 characters after trimming")
	codeInvalidSealedValue   = defineCode("invalid_sealed_value", http.StatusBadRequest, "a sealed audit IP that this server did not seal, or that was altered (admin)")
	codeUnauthorized         = defineCode("unauthorized", http.StatusUnauthorized, template.HTML("a missing, mistyped, unknown or revoked <code>X-API-Key</code>, each with its own message: a key revoked, rotated, or revoked with its account's password or with the account is named revoked, with the date and why, for "+
		revokedKeyDays+" days, and then reads as unknown; or a missing or invalid <code>hibp-api-key</code> on <code>GET /range</code>, admin credential or metrics token"))
	codeInvalidCredentials   = defineCode("invalid_credentials", http.StatusUnauthorized, "wrong email or password (the same answer for both)")
	codeAccountNotVerified   = defineCode("account_not_verified", http.StatusUnauthorized, "the email address is not verified yet")
	codeLoginRequired        = defineCode("login_required", http.StatusUnauthorized, "a session route without a valid <code>auth_session</code> cookie")
	codeInvalidSignature     = defineCode("invalid_signature", http.StatusUnauthorized, "a billing webhook whose <code>Secutil-Signature</code> is missing, malformed or wrong")
	codeStaleSignature       = defineCode("stale_signature", http.StatusUnauthorized, "a billing webhook signed more than 5 minutes from the server's clock")
	codeForbidden            = defineCode("forbidden", http.StatusForbidden, "an admin route called from an account that is not an administrator, or <code>/switch_tier</code> on a plan an administrator set (ask an administrator)")
	codeAccountDisabled      = defineCode("account_disabled", http.StatusForbidden, "a login, key or session of an account an administrator disabled")
	codeRegistrationClosed   = defineCode("registration_closed", http.StatusForbidden, "<code>/register</code> on a server started with <code>-registration closed</code>, or with <code>-registration invite</code> and no invite")
	codeInvalidInvite        = defineCode("invalid_invite", http.StatusForbidden, "an invite that is unknown, used or past its 7 days")
	codeInvalidSetupToken    = defineCode("invalid_setup_token", http.StatusForbidden, "a <code>/setup</code> link that is wrong, or from an earlier start of the server")
	codeCrossOrigin          = defineCode("cross_origin_request", http.StatusForbidden, "a browser's cross-site POST: a web app on another site cannot call the API from its visitors' browsers with a key; it calls it from its own server")
	codeRangeNotPublic       = defineCode("range_not_public", http.StatusForbidden, "a browser's cross-origin preflight for <code>GET /range</code> while the range API is not public (<code>-range-api public</code>)")
	codeNotFound             = defineCode("not_found", http.StatusNotFound, "no such route")
	codeKeyNotFound          = defineCode("key_not_found", http.StatusNotFound, "revoking a key name the account does not hold (dashboard)")
	codeMetricsOff           = defineCode("metrics_off", http.StatusNotFound, "<code>GET /metrics</code> on a listener without <code>-metrics-token</code> (scrape <code>-metrics-addr</code>, or set the token)")
	codeAccountNotFound      = defineCode("account_not_found", http.StatusNotFound, "an admin action on an email that has no account")
	codeInviteNotFound       = defineCode("invite_not_found", http.StatusNotFound, "revoking an invite that is unknown, used or expired (admin)")
	codeProductNotFound      = defineCode("product_not_found", http.StatusNotFound, "changing or deleting a product id that does not exist (admin)")
	codeMethodNotAllowed     = defineCode("method_not_allowed", http.StatusMethodNotAllowed, "the route exists with another method, named in <code>Allow</code>")
	codeKeyExists            = defineCode("key_exists", http.StatusConflict, "creating a key whose name is in use (dashboard)")
	codeLastAdmin            = defineCode("last_admin", http.StatusConflict, "revoking, disabling or deleting the last enabled administrator (admin)")
	codeInvitesOff           = defineCode("invites_off", http.StatusConflict, "creating an invite on a server not started with <code>-registration invite</code> (admin)")
	codeSetupDone            = defineCode("setup_done", http.StatusGone, "a <code>/setup</code> link once an administrator exists")
	codeRequestTooLarge      = defineCode("request_too_large", http.StatusRequestEntityTooLarge, "a body over 1 MiB, or over 8 KiB on the account forms (login, register, setup, verification, reset, <code>/get_api_key</code>); a <code>/password_audit</code> dump over the server's limit (8 MiB by default)")
	codeUnsupportedMediaType = defineCode("unsupported_media_type", http.StatusUnsupportedMediaType, "a body that is neither JSON nor a form")
	codeHostNotAllowed       = defineCode("host_not_allowed", http.StatusMisdirectedRequest, "a <code>Host</code> this server does not answer for (see <code>-allowed-hosts</code>)")
	codePlanLimitReached     = defineCode("plan_limit_reached", http.StatusTooManyRequests, `the plan's monthly items are used up, or a batch has more items than are left (it is refused whole); see <a href="/docs/rate_limits">rate limits</a>`)
	codeRateLimited          = defineCode("rate_limited", http.StatusTooManyRequests, "too many login, key, registration or reset attempts, public hash lookups or range calls; wait <code>Retry-After</code> seconds")
	codeInternal             = defineCode("internal_error", http.StatusInternalServerError, "a server failure; the client sees <code>internal error</code> and the detail goes to the server log")
	codeGeoIPNotConfigured   = defineCode("geoip_not_configured", http.StatusInternalServerError, "an IP lookup on a server started with <code>-geoip-embedded=false</code> and no GeoIP file")
	codeBusy                 = defineCode("busy", http.StatusServiceUnavailable, "every key derivation slot stayed busy until the request ended, or the server was reading too many request bodies or sending too many large answers at once, or too many of one client's or account's; retry shortly (<code>Retry-After</code>)")
	codeBillingNotConfigured = defineCode("billing_not_configured", http.StatusServiceUnavailable, "checkout on a server without <code>-checkout-url</code>, or a billing webhook on one without <code>-billing-secret</code>")
	codeRangeAPIOff          = defineCode("range_api_off", http.StatusServiceUnavailable, "<code>GET /range</code> on a server started with <code>-range-api off</code>")
	codeRangeNotConfigured   = defineCode("range_not_configured", http.StatusServiceUnavailable, "<code>GET /range</code> in a mode whose Pwned Passwords file is not configured (<code>-breach-file</code>, <code>-breach-file-ntlm</code>)")
	codeDatabaseUnavailable  = defineCode("database_unavailable", http.StatusServiceUnavailable, "the database did not answer for a few seconds (PostgreSQL restarting or failing over); retry after <code>Retry-After</code> seconds. Nothing was counted or changed")
	codeNoServerKey          = defineCode("no_server_key", http.StatusServiceUnavailable, "opening a sealed audit IP on a server that runs without a server key (admin)")
)

// databaseRetryAfter is the Retry-After of an answer refused because the
// database did not answer: the wait the store suggests, in seconds.
var databaseRetryAfter = strconv.Itoa(int(store.RetryAfter.Seconds()))

// toolErrors places the errors of the tools and the store in the
// vocabulary; publicError takes the first row that matches. The client
// sees msg, or the error's own text when msg is empty: tools write their
// errors for a person and name no flag, and the rows say which flag
// enables a feature.
var toolErrors = []struct {
	match func(error) bool
	code  *errorCode
	msg   string
}{
	{is(codec.ErrInvalidBase64, pbe.ErrInvalidInput), codeInvalidInput, ""},
	{as[*hashgen.InputError], codeInvalidInput, ""},
	{as[*hashverify.InvalidError], codeInvalidInput, ""},
	{as[*hashverify.UnsupportedError], codeUnsupportedHash, ""},
	{is(codec.ErrInvalidParameter, passgen.ErrInvalidOptions), codeInvalidRequest, ""},
	{is(pbe.ErrDecryptionFailed), codeDecryptionFailed, "decryption failed: wrong password or altered text"},
	{as[*jsonfmt.SyntaxError], codeInvalidJSON, ""},
	{is(jwt.ErrInvalid), codeInvalidJWT, ""},
	{is(jwt.ErrInvalidKey), codeInvalidJWTKey, ""},
	{jsonBound(jsonfmt.LimitDepth), codeTooDeeplyNested, ""},
	{jsonBound(jsonfmt.LimitOutput), codeOutputTooLarge, ""},
	{is(geo.ErrInvalidIP), codeInvalidIP, ""},
	{is(geo.ErrNoDatabase), codeGeoIPNotConfigured,
		"no GeoIP database configured: the embedded ones are turned off (-geoip-embedded=false) and no -geoip-city, -geoip-asn or -geoip-isp file is set"},
	{as[*hashindex.InvalidDigestError], codeInvalidHashInput, ""},
	{is(hashindex.ErrTooManyDigests), codeInvalidHashInput, ""},
	{as[*hashgen.UnknownAlgorithmError], codeUnknownAlgorithm, ""},
	{is(breach.ErrQueryFields, breach.ErrBadSHA1, breach.ErrBadNTLM, breach.ErrBadPrefix, breach.ErrLongPassword), codeInvalidRequest, ""},
	{is(breach.ErrRangeTooLarge), codeRangeTooLarge, ""},
	{as[*passpolicy.Refusal], codeWeakPassword, ""},
	{is(store.ErrLastAdmin), codeLastAdmin, store.ErrLastAdmin.Error()},
	{is(store.ErrUnverified), codeInvalidRequest, store.ErrUnverified.Error()},
	{is(store.ErrSetupToken), codeInvalidSetupToken, store.ErrSetupToken.Error()},
	{is(store.ErrSetupDone), codeSetupDone, store.ErrSetupDone.Error()},
	{is(store.ErrInviteInvalid), codeInvalidInvite, store.ErrInviteInvalid.Error()},
	{is(seal.ErrMalformed, seal.ErrAuthentication), codeInvalidSealedValue, "not a value sealed by this server"},
	{is(webhooksig.ErrMalformed, webhooksig.ErrMismatch), codeInvalidSignature, ""},
	{is(webhooksig.ErrStale), codeStaleSignature, ""},
	// The store wraps its errors with context meant for the log: the
	// client gets the sentence of the error itself.
	{is(store.ErrTooManyKeys), codeInvalidRequest, store.ErrTooManyKeys.Error()},
	{is(store.ErrInvalidText), codeInvalidRequest, store.ErrInvalidText.Error()},
	// The store retried for its whole budget and logged the outage once.
	{is(store.ErrUnavailable), codeDatabaseUnavailable, "the database is unreachable for a moment; retry shortly"},
	// The key derivation slots of /secure_encrypt and /secure_decrypt
	// stayed taken until the request's context ended.
	{is(context.DeadlineExceeded, context.Canceled), codeBusy, "the server is busy, retry shortly"},
}

// is matches an error that is any of targets (errors.Is).
func is(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, target := range targets {
			if errors.Is(err, target) {
				return true
			}
		}
		return false
	}
}

// as matches an error of type T (errors.As).
func as[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

// jsonBound matches JSON refused by the named bound of jsonfmt.
func jsonBound(bound jsonfmt.Limit) func(error) bool {
	return func(err error) bool {
		var limit *jsonfmt.LimitError
		return errors.As(err, &limit) && limit.Limit == bound
	}
}

// apiError is an error with the code (and so the status) the client should
// see. Its message is written for a person and never contains a secret.
type apiError struct {
	code  *errorCode
	msg   string
	field string // the required field a missing_field error names
}

func (e *apiError) Error() string { return e.msg }

func (e *apiError) status() int { return e.code.Status }

func newError(code *errorCode, format string, args ...any) *apiError {
	// Without arguments the message is used as written: most package-level
	// errors are such, and formatting them at init cost every command's
	// start (secutil version included) a few dozen fresh memory pages.
	if len(args) == 0 {
		return &apiError{code: code, msg: format}
	}
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *apiError {
	return newError(codeInvalidRequest, format, args...)
}

var (
	errUnauthorized  = newError(codeUnauthorized, "missing or invalid API key: send it in the X-API-Key header")
	errLoginRequired = newError(codeLoginRequired, "login required")
	errInternal      = newError(codeInternal, "internal error")
)

// errorBody is the JSON of every error; for the response types that carry
// their own "error" field (base64, jwt, crypto, json) it is that same shape.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// truncate shortens user input quoted back in an error message.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ruleError is an account rule's refusal as a 400 naming the field.
func ruleError(err error) error {
	var rule *account.RuleError
	if errors.As(err, &rule) {
		return badRequest("field %q %s", rule.Field, rule.Problem)
	}
	return err
}
