package server

import (
	"context"
	"net/http"
	"reflect"

	"secutil/tools/audit"
	"secutil/tools/geo"
	"secutil/tools/jsonfmt"
)

// A utility is one thing the API offers, declared once in utilities: its
// route (under /api and /api/v1, and at the root for the utilities page),
// its request and response types, its panel of the utilities page, its
// error codes, and what its operation of the OpenAPI document says. The
// routes, the utilities page and static/openapi.json (openapi.go) are all
// made from this table.
type utility struct {
	path    string // "/base64": under each API scope, and at the root
	panel   string // the panel of templates/tools.html that shows its answer
	summary string // the operation's summary
	// description is the operation's description, "" for none.
	description string
	// example is the request the document shows, as JSON.
	example string
	// errors are the codes of its own that the utility answers, besides
	// the ones every route has; their statuses are documented.
	errors []*errorCode
	// statuses are documented statuses that no code of errors has.
	statuses []int

	request, response reflect.Type
	// requestSchema and responseSchema name the schemas of the document
	// (components/schemas). A type of package server is reflected into its
	// schema (openapi.go); any other (a tool's type, or a response of
	// several shapes) is written in openapi_source.json.
	requestSchema, responseSchema string

	// bind makes the utility's runner for a server.
	bind func(s *Server) runner
}

// runner decodes a utility's request, runs its action with c, and returns
// the response to encode.
type runner func(w http.ResponseWriter, r *http.Request, c *call) (any, error)

// An action is what a route does apart from HTTP: it takes a context and
// the decoded request, and returns the response to encode or an error. A
// utility's action finds its caller with callOf(ctx); any other route's
// finds its exchange with exchangeOf(ctx) (exchange.go).
type action[Q, R any] func(ctx context.Context, req Q) (R, error)

// noRequest is the request of an action that reads no body: the body, if
// any, is not decoded.
type noRequest struct{}

// optionalBody is a request type whose body may be left out: no body is
// the zero request, every field at its default.
type optionalBody interface{ bodyOptional() }

// declare completes u with its action's request and response types and
// the runner that decodes Q (refusing keys that are no field of Q), runs
// the action and returns its R.
func declare[Q, R any](u utility, act func(s *Server) action[Q, R]) utility {
	return declareDecoded(u, func(*Server) decoder[Q] { return decodeClosed[Q] }, act)
}

// declareDecoded is declare for a utility whose request the server decodes
// its own way (a body limit that is a setting of the server).
func declareDecoded[Q, R any](u utility, dec func(s *Server) decoder[Q], act func(s *Server) action[Q, R]) utility {
	u.request, u.response = reflect.TypeFor[Q](), reflect.TypeFor[R]()
	u.bind = func(s *Server) runner {
		run, decodeQ := act(s), dec(s)
		return func(w http.ResponseWriter, r *http.Request, c *call) (any, error) {
			req, err := decodeQ(w, r)
			if err != nil {
				return nil, err
			}
			return run(c, req)
		}
	}
	return u
}

// unbound lifts an action that needs nothing of the server.
func unbound[Q, R any](act action[Q, R]) func(*Server) action[Q, R] {
	return func(*Server) action[Q, R] { return act }
}

// utilities is every utility of the API, in the order of the /{tool}
// route's list in the OpenAPI document.
var utilities = []utility{
	declare(utility{
		path: "/base64", panel: "base64", summary: "Base64 encode or decode",
		description:   base64Description,
		requestSchema: "Base64Request", responseSchema: "Base64Response",
		example: `{"text": "hello", "option": "encode"}`,
		errors:  []*errorCode{codeInvalidInput},
	}, unbound(convertBase64)),
	declare(utility{
		path: "/generate_random_key", panel: "randomkey", summary: "A random key of a chosen length and format",
		description:   "Bytes from the operating system's random source (crypto/rand), 32 by default, written in hex unless format says otherwise. The body may be left out.",
		requestSchema: "GenerateRandomKeyRequest", responseSchema: "GenerateRandomKeyResponse",
		example: `{"length": 32, "format": "base64url"}`,
	}, unbound(generateRandomKey)),
	declare(utility{
		path: "/generate_password", panel: "passgen", summary: "Generate a password or a passphrase",
		description:   generatePasswordDescription,
		requestSchema: "GeneratePasswordRequest", responseSchema: "GeneratePasswordResponse",
		example: `{"length": 24, "no_look_alikes": true}`,
	}, unbound(generatePassword)),
	declare(utility{
		path: "/jwt_decoder", panel: "jwt", summary: "Decode a JWT (no signature check)",
		description:   jwtDecoderDescription,
		requestSchema: "JwtRequest", responseSchema: "JwtResponse",
		example: `{"token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2ln"}`,
		errors:  []*errorCode{codeInvalidJWT, codeTooDeeplyNested},
	}, unbound(decodeJWT)),
	declare(utility{
		path: "/jwt_verify", panel: "jwtverify", summary: "Verify a JWT's signature and time claims against a key",
		description:   jwtVerifyDescription,
		requestSchema: "JwtVerifyRequest", responseSchema: "JwtVerifyResponse",
		example: `{"token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjMiLCJuYW1lIjoiQW5uIn0.xu1xFlSP9uzH8HlCBdZDLw0ILVT0qp0vLH1FcZ9mf1Q", "key": "a shared secret of at least 32 bytes"}`,
		errors:  []*errorCode{codeInvalidJWT, codeInvalidJWTKey, codeTooDeeplyNested},
	}, unbound(verifyJWT)),
	declare(utility{
		path: "/json_format", panel: "json", summary: "Pretty-print JSON",
		description:   jsonFormatDescription,
		requestSchema: "JsonRequest", responseSchema: "JsonResponse",
		example: `{"text": "{\"a\":1}"}`,
		errors:  []*errorCode{codeInvalidJSON, codeTooDeeplyNested, codeOutputTooLarge},
	}, unbound(transformJSON(jsonfmt.Format))),
	declare(utility{
		path: "/json_minify", panel: "json", summary: "Minify JSON",
		description:   jsonMinifyDescription,
		requestSchema: "JsonRequest", responseSchema: "JsonResponse",
		example: `{"text": "{ \"a\": 1 }"}`,
		errors:  []*errorCode{codeInvalidJSON, codeTooDeeplyNested},
	}, unbound(transformJSON(jsonfmt.Minify))),
	declare(utility{
		path: "/suggestion", panel: "suggestion", summary: "Send a feature suggestion",
		requestSchema: "SuggestionInput", responseSchema: "SuggestionResponse",
		example: `{"message": "more tools please"}`,
		errors:  []*errorCode{codeInvalidMessageLength},
	}, unbound(suggest)),
	declare(utility{
		path: "/secure_encrypt", panel: "crypto", summary: "Encrypt a text with a password",
		description:   secureEncryptDescription,
		requestSchema: "CryptoRequest", responseSchema: "CryptoResponse",
		example: `{"text": "secret note", "password": "a long passphrase"}`,
		errors:  []*errorCode{codeBusy},
	}, func(s *Server) action[cryptoRequest, cryptoResponse] { return sealWith(s.Crypto.Encrypt) }),
	declare(utility{
		path: "/secure_decrypt", panel: "crypto", summary: "Decrypt a text made by secure_encrypt",
		description:   secureDecryptDescription,
		requestSchema: "CryptoRequest", responseSchema: "CryptoResponse",
		example: `{"text": "<envelope>", "password": "a long passphrase"}`,
		errors:  []*errorCode{codeInvalidInput, codeDecryptionFailed, codeBusy},
	}, func(s *Server) action[cryptoRequest, cryptoResponse] { return sealWith(s.Crypto.Decrypt) }),
	declare(utility{
		path: "/ip_info", panel: "ip", summary: "IP geolocation",
		description:   ipInfoDescription,
		requestSchema: "IPRetrieverRequest", responseSchema: "GeoInfo2",
		example: `{"ip_string": "8.8.8.8"}`,
		errors:  []*errorCode{codeInvalidIP, codeGeoIPNotConfigured},
	}, func(s *Server) action[ipRequest, geo.Info] { return s.locateIP }),
	declare(utility{
		path: "/password_check", panel: "strength", summary: "Password strength",
		description:   passwordCheckDescription,
		requestSchema: "PasswordCheckBody", responseSchema: "StrengthResult",
		example: `{"password": "correct horse battery staple"}`,
	}, func(s *Server) action[passwordRequest, strengthResponse] { return s.rateStrength }),
	declare(utility{
		path: "/entropy", panel: "entropy", summary: "Entropy and brute-force estimate",
		requestSchema: "EntropyRequest", responseSchema: "EntropyResponse",
		example: `{"password": "correct horse battery staple"}`,
	}, unbound(measureEntropy)),
	declare(utility{
		path: "/common_pwd", panel: "common", summary: "Is the password a common one?",
		requestSchema: "PasswordRequest", responseSchema: "PasswordResponse",
		example: `{"password": "letmein"}`,
	}, unbound(checkCommon)),
	declare(utility{
		path: "/data_breach", panel: "breach", summary: "Is the password in the breach data?",
		requestSchema: "BreachRequest", responseSchema: "BreachResponse",
		example: `{"password": "letmein"}`,
		errors:  []*errorCode{codeRangeTooLarge, codeNTLMNotConfigured},
	}, func(s *Server) action[breachRequest, any] { return s.checkBreach }),
	declare(utility{
		path: "/hash_generator", panel: "hashgen", summary: "Hash a text",
		description:   hashGeneratorDescription,
		requestSchema: "HashGeneratorRequest", responseSchema: "HashGeneratorResponse",
		example: `{"algorithm": "sha256", "plaintext": "hello"}`,
		errors:  []*errorCode{codeUnknownAlgorithm, codeInvalidInput, codeBusy},
	}, func(s *Server) action[hashGeneratorRequest, hashGeneratorResponse] { return s.generateHash }),
	declare(utility{
		path: "/hash_verify", panel: "hashverify", summary: "Does a password match a hash?",
		description:   hashVerifyDescription,
		requestSchema: "HashVerifyRequest", responseSchema: "HashVerifyResponse",
		example: `{"password": "password", "hash": "5f4dcc3b5aa765d61d8327deb882cf99"}`,
		errors:  []*errorCode{codeUnsupportedHash, codeInvalidInput, codeBusy},
	}, func(s *Server) action[hashVerifyRequest, hashVerifyResponse] { return s.verifyHash }),
	declare(utility{
		path: "/hash_identifier", panel: "hashid", summary: "Identify a hash's type, or a batch's",
		description:   hashIdentifierDescription,
		requestSchema: "HashIdentifierRequest", responseSchema: "HashIdentifierResponse",
		example: `{"hash": "5f4dcc3b5aa765d61d8327deb882cf99"}`,
		errors:  []*errorCode{codeInvalidHashInput},
	}, unbound(identifyHashes)),
	declare(utility{
		path: "/hash_lookup", panel: "lookup", summary: "Reverse lookup of hashes",
		requestSchema: "HashLookupBody", responseSchema: "HashLookupOutput",
		example:  `{"hashes": "5f4dcc3b5aa765d61d8327deb882cf99"}`,
		errors:   []*errorCode{codeInvalidHashInput},
		statuses: []int{http.StatusBadGateway},
	}, func(s *Server) action[hashLookupRequest, hashLookupOutput] { return s.lookupHashes }),

	// The password audit of a credential dump (issue 36).
	declareDecoded(utility{
		path: "/password_audit", panel: "audit", summary: "Audit the passwords of a credential dump",
		description:   passwordAuditDescription,
		requestSchema: "PasswordAuditRequest", responseSchema: "PasswordAuditReport",
		example: `{"dump": "CORP\\alice:1104:aad3b435b51404eeaad3b435b51404ee:8846f7eaee8fb117ad06bdd830b7586c:::"}`,
		errors:  []*errorCode{codeRequestTooLarge},
	}, func(s *Server) decoder[passwordAuditRequest] { return s.decodeAudit },
		func(s *Server) action[passwordAuditRequest, *audit.Report] { return s.auditPassword }),
}

// passwordAuditDescription is /password_audit's operation description.
const passwordAuditDescription = "Audits every account of a dump, as DSInternals' Test-PasswordQuality audits an Active Directory: pwdump and secretsdump lines, user:hash lines with an unsalted hex hash (32 hex digits are an NT hash) and /etc/shadow or passwd lines, recognised line by line; a line that fits none is listed in refused, never fatal. Each account says whether its password is empty, an LM hash is present, how often its hash was breached (from the server's Pwned Passwords NTLM file, or SHA-1 file for SHA-1 hashes; null without one), whether the password was found in the reverse-lookup index or the embedded common-password list, equals the user name, is a computer account's default, how many other accounts share its hash, and a weak crypt(3) scheme. The summary counts each finding and lists the groups of accounts sharing a hash, largest first, and the most breached accounts. A password is in the answer only with show_plaintext. The dump is held in memory for the call only (never written to disk or the log) and the answer carries Cache-Control: no-store. The dump may have 6 MiB by default, a setting of the server (serve -audit-dump-size, which may lower it); a larger one is a 413 request_too_large. Counts one item per account toward the monthly usage (refused lines are free; a dump with no account counts one), held once the dump is read and before any lookup: a dump with more accounts than the month has left is refused whole with 429 plan_limit_reached."

// The operations' descriptions, too long for the table.
const (
	jwtDecoderDescription       = "Decodes header, payload and signature without verifying the signature. The header and payload are bounded as in json_format: nesting deeper than 512 levels is a 400 too_deeply_nested, an answer larger than 4 times the token or 1 MiB a 400 output_too_large."
	jsonFormatDescription       = "Two-space indent, key order kept, <>& not escaped; invalid JSON is a 400 with line and column. Work is bounded: input up to 512 KiB, nesting up to 512 levels of arrays and objects (deeper: 400 too_deeply_nested), output up to 4 times the input or 1 MiB, whichever is larger (more: 400 output_too_large)."
	jsonMinifyDescription       = "Compact form, key order kept; invalid JSON is a 400 with line and column. Work is bounded: input up to 512 KiB, nesting up to 512 levels of arrays and objects (deeper: 400 too_deeply_nested), output up to 4 times the input or 1 MiB, whichever is larger (more: 400 output_too_large)."
	secureEncryptDescription    = "argon2id then XChaCha20-Poly1305; the result is a versioned base64url envelope."
	secureDecryptDescription    = "Opens an envelope of /secure_encrypt. Envelopes whose argon2id costs exceed this server's own encryption parameters (64 MiB, t=3, p=1) in memory, passes or lanes are refused with 400 invalid_input before any key derivation, as are malformed ones; neither counts. A wrong password or altered text is 400 decryption_failed and counts as a call: the key derivation ran."
	ipInfoDescription           = "Country and ASN for any public IPv4 or IPv6 address out of the box, from databases built into the binary: IP geolocation by DB-IP (https://db-ip.com; DB-IP Lite Country, CC BY 4.0) and ASN data by RouteViews (https://www.routeviews.org), DB-IP and NRO (CC BY 4.0). Country name, flag, calling code, currency, languages and EU membership come from an embedded country table. city, region, postal, timezone, latitude and longitude are null unless the server has a City database (-geoip-city); databases given with -geoip-city, -geoip-asn and -geoip-isp take precedence over the built-in ones field by field. source names the databases the answer came from. Private and reserved addresses, and addresses no database lists, answer 200 with nulls and a note. 500 only when the operator turned every database off (-geoip-embedded=false with no file) or a lookup fails."
	passwordCheckDescription    = "Scores the password 0 to 4 with a re-implementation of zxcvbn 4.4.2 (the caller's email counts as a dictionary word). On a server with a Pwned Passwords file (-breach-file), breached is how often the file saw the password, and a password it holds scores 0 (\"very weak\") with a feedback line saying so, whatever its patterns; without a file, breached is null. Account passwords are refused below a score of 2, and when breached."
	hashGeneratorDescription    = "Hashes plaintext with the named algorithm. bcrypt, argon2id and scrypt take their costs from cost (bcrypt), memory, time and parallelism (argon2id), and n, r and p (scrypt), each at its default when 0 or absent, within bounds that keep a call near a second of one core and 256 MiB: bcrypt cost 4 to 14; argon2id memory up to 256 MiB, time up to 10, parallelism up to 8, memory × time up to 1 GiB; scrypt N a power of two up to 2^20, r up to 32, p up to 16, 128·N·r up to 256 MiB and 128·N·r·p up to 512 MiB. A cost out of bounds, or one the algorithm does not take (a cost for sha256), is a 400 invalid_input before any work. The three share the key-derivation slots of /secure_encrypt (one per CPU), so a burst of them waits rather than exhausting memory. On a capped plan a call past the calls left is refused with 429 before any work."
	hashVerifyDescription       = "Compares a password with a hash string and names its scheme: bcrypt ($2a$, $2b$, $2y$); argon2i and argon2id (PHC, v=19); scrypt ($scrypt$ of passlib and /hash_generator, $7$ of libsodium, Django's scrypt$ and Werkzeug's scrypt:); PBKDF2 with SHA-1, SHA-256 or SHA-512 (PHC, passlib's $pbkdf2-sha256$, Django's pbkdf2_sha256$ and Werkzeug's pbkdf2:); md5-crypt ($1$, Apache's $apr1$); sha256-crypt ($5$) and sha512-crypt ($6$); and unsalted hex digests of /hash_generator (MD5, NTLM, SHA-1, SHA-2, SHA-3, ...). A hex digest whose length fits several (32 digits: MD5, NTLM, MD4) is tried with each: scheme names the one that matched, candidates all. Derived values are compared in constant time. A mismatch is a 200 with match false. The costs a hash asks for are bounded as /hash_generator's (bcrypt cost up to 14, argon2 and scrypt memory up to 256 MiB, PBKDF2 up to 4,000,000 iterations × blocks, SHA-crypt up to 1,000,000 rounds) and checked before any work: past them, or malformed, is a 400 invalid_input saying which. A string in no scheme above is a 400 unsupported_hash that lists them. The slow schemes (all but digests and md5-crypt) share the key-derivation slots of /secure_encrypt."
	jwtVerifyDescription        = "Checks a token's signature with key (an HMAC secret, a PEM public key or certificate, a JWK, or a JWKS document whose key is the one of the token's kid, or with no kid the only one that fits its alg) and its time claims, allowing a minute of clock skew. Supported: HS256/384/512, RS256/384/512 and PS256/384/512 (RSA keys of 2048 to 8192 bits), ES256/384/512, EdDSA (Ed25519). A token that is not valid is a 200 with valid false and the first reason that applies: alg none, an algorithm not supported, a crit header, no JWKS key for it, an algorithm that does not fit the key's type (an HMAC alg with a public key), an RSA key under 2048 bits, a bad signature, a malformed exp, nbf or iat, expired, not valid yet, issued in the future. A token that is not a JWT is a 400 invalid_jwt; a key that cannot be read (not a secret, PEM, JWK or JWKS; a private key) a 400 invalid_jwt_key. header and payload are answered whether or not the token is valid: read them as claims, trust them only when valid."
	generatePasswordDescription = "A password of length characters (default 20) drawn uniformly from the chosen classes, lower- and upper-case letters, digits and ASCII punctuation (all by default), with at least one of each, optionally without look-alike characters (0 O 1 l I |); or, with mode passphrase, words (default 6) drawn from EFF's large word list (7,776 words, 12.9 bits each; Electronic Frontier Foundation, https://www.eff.org/dice, CC BY 3.0 US), joined by separator, in lower, title, upper or random case, with an optional digit. entropy_bits is log2 of the number of equally likely answers under the options. Every draw comes from crypto/rand without modulo bias."
	base64Description           = "Encodes text as standard, padded base64, or decodes the standard or URL-safe alphabet, padded or not, with white space and line breaks ignored. Decoded bytes that are not UTF-8 text are answered as hex, or as base64url without padding when output says so; output text refuses them (400 invalid_input)."
	hashIdentifierDescription   = "Names the formats a string could be in, best first, over 966 formats: every hashcat 6.2.6 mode whose input is text (432, with its hashcat mode and John the Ripper format), six of later hashcat releases, and the formats only John the Ripper or the tools that write them know. John's own syntax is read too (its tags, M$user#hash, message#hash HMACs, every preloaded $dynamic_N$ with its expression): a format both crackers know is one candidate with hashcat_mode and john_format and a command line for each. A format that parses every field of the string ranks above one that only fits its length; among equals, a prevalence table puts what people meet first (for 32 hex: MD5, NTLM, MD4, LM). Each candidate carries the parameters the string holds (cost or rounds, iterations, memory, salt, user or realm, version) and a hashcat command line. LDAP and Dovecot wrappers ({CRYPT}, {SHA512-CRYPT}) are read through; emails, URLs, UUIDs, IP addresses, words, text and base64 of text are called what they are (estimate \"not a hash\" and a note). {\"hashes\"} (an array, or one string split on newlines, commas, semicolons and spaces as for /hash_lookup; at most 500, fixed: unlike /hash_lookup's, not a setting) answers {\"count\",\"groups\"}: hashes of the same shape grouped, largest group first. Measured on hashcat's own example of each of the 432 modes: the true mode is among the candidates for 100%, in the first five for 82.6%, first for 63.4% (hashcat --identify: 96.5%, 74.3%, 56.2%); on 145 hashes made by openssl, htpasswd, mkpasswd, slappasswd, doveadm, Python, PHP, MariaDB and PostgreSQL, first for 97.9% and in the first five for all. See /docs/hashes."
)
