package server

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"secutil/tools/breach"
)

// RangeAccess says who may call GET /range/{prefix}, the Pwned Passwords
// range API (docs/BREACH.md).
type RangeAccess int

const (
	// RangeKey, the default, wants a secutil API key in the X-API-Key or
	// hibp-api-key header. Calls are not metered; they are rate limited per key.
	RangeKey RangeAccess = iota
	// RangePublic serves anyone, rate limited per client IP.
	RangePublic
	// RangeOff answers every range call with 503 range_api_off: not 404,
	// which clients written for Have I Been Pwned (gopass's) read as "not
	// breached", so they would pass every password.
	RangeOff
)

var rangeAccessNames = []string{RangeKey: "key", RangePublic: "public", RangeOff: "off"}

func (a RangeAccess) String() string { return rangeAccessNames[a] }

// ParseRangeAccess reads the -range-api flag: off, public or key.
func ParseRangeAccess(s string) (RangeAccess, error) {
	for a, name := range rangeAccessNames {
		if s == name {
			return RangeAccess(a), nil
		}
	}
	return 0, fmt.Errorf("want off, public or key, not %q", s)
}

// RangeAPI configures GET /range/{prefix}.
type RangeAPI struct {
	// SHA1 and NTLM are the Pwned Passwords downloads (-breach-file,
	// -breach-file-ntlm), read in place; without one, its mode answers 503
	// range_not_configured, for the reason RangeOff gives.
	SHA1, NTLM *breach.File
	Access     RangeAccess
}

// rangeMaxAge is how long clients and caches may keep a range answer: the
// file changes when an operator downloads a new one, every few months.
const rangeMaxAge = 24 * time.Hour

// hibpKeyHeader is where clients written for Have I Been Pwned send a key.
const hibpKeyHeader = "Hibp-Api-Key"

// rangeSource is one mode of the range API.
type rangeSource struct {
	file *breach.File
	kind breach.Kind
	flag string // the flag that configures it, named by the 503 without one
	tag  string // the file's version, in the answers' ETags
}

func newRangeSource(f *breach.File, kind breach.Kind, flag string) rangeSource {
	src := rangeSource{file: f, kind: kind, flag: flag}
	if f != nil {
		var id [17]byte
		binary.BigEndian.PutUint64(id[:], uint64(f.Size()))
		binary.BigEndian.PutUint64(id[8:], uint64(f.ModTime().UnixNano()))
		id[16] = byte(kind)
		sum := sha256.Sum256(id[:])
		src.tag = hex.EncodeToString(sum[:8])
	}
	return src
}

// handleRange answers GET /range/{prefix} as api.pwnedpasswords.com does:
// text/plain, "SUFFIX:COUNT" lines joined by CRLF, sorted; ?mode=ntlm from
// the NTLM file; "Add-Padding: true" pads to 800-1,000 lines. Errors are
// JSON, as everywhere else.
func (s *Server) handleRange() http.Handler {
	sources := map[string]rangeSource{
		"":     newRangeSource(s.Range.SHA1, breach.KindSHA1, "-breach-file"),
		"sha1": newRangeSource(s.Range.SHA1, breach.KindSHA1, "-breach-file"),
		"ntlm": newRangeSource(s.Range.NTLM, breach.KindNTLM, "-breach-file-ntlm"),
	}
	cacheControl := fmt.Sprintf("private, max-age=%d", int(rangeMaxAge.Seconds()))
	if s.Range.Access == RangePublic {
		cacheControl = fmt.Sprintf("public, max-age=%d", int(rangeMaxAge.Seconds()))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.rangeAllowed(w, r); err != nil {
			s.writeError(w, r, err)
			return
		}
		mode := r.URL.Query().Get("mode")
		src, ok := sources[strings.ToLower(mode)]
		if !ok {
			s.writeError(w, r, newError(codeInvalidMode, "mode must be sha1 or ntlm, not %q", mode))
			return
		}
		prefix := r.PathValue("prefix")
		if !validPrefix(prefix) {
			s.writeError(w, r, newError(codeInvalidPrefix, "the hash prefix must be exactly %d hex digits", breach.PrefixLen))
			return
		}
		if src.file == nil {
			s.writeError(w, r, newError(codeRangeNotConfigured,
				"this range needs the Pwned Passwords %s file: start secutil with %s", src.kind, src.flag))
			return
		}
		pad := strings.EqualFold(r.Header.Get("Add-Padding"), "true")
		buf := getBuffer()
		defer putBuffer(buf)
		body, err := src.file.AppendRange(buf.AvailableBuffer(), prefix, pad)
		if err != nil {
			s.writeError(w, r, err) // the prefix is valid: only a damaged file fails here
			return
		}
		buf.Write(body)

		h := w.Header()
		h.Set("Content-Type", "text/plain")
		h.Set("Cache-Control", cacheControl)
		h.Set("Vary", "Add-Padding")
		etag := `"` + src.tag + "-" + strings.ToUpper(prefix) + `"`
		if pad {
			// Padded answers differ byte for byte but mean the same.
			etag = "W/" + strings.TrimSuffix(etag, `"`) + `-padded"`
		}
		h.Set("ETag", etag)
		if s.Range.Access == RangePublic {
			h.Set("Access-Control-Allow-Origin", "*")
		}
		serveContent(w, r, "", src.file.ModTime(), buf.Bytes())
	})
}

// handleRangePreflight answers a browser's CORS preflight for a public
// range API, which it sends before a call with Add-Padding.
func (s *Server) handleRangePreflight() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Range.Access != RangePublic {
			s.writeError(w, r, newError(codeRangeNotPublic,
				"the range API takes cross-origin calls only when public (-range-api public)"))
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET")
		h.Set("Access-Control-Allow-Headers", "Add-Padding")
		h.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
	})
}

// validPrefix reports whether p is exactly 5 hex digits, either case.
func validPrefix(p string) bool {
	if len(p) != breach.PrefixLen {
		return false
	}
	for i := range len(p) {
		c := p[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

var errRangeKey = newError(codeUnauthorized,
	"missing or invalid API key: send a secutil key in the X-API-Key or hibp-api-key header")

// rangeAllowed applies -range-api: off refuses, key authenticates, and both
// key and public take a token from the caller's bucket.
func (s *Server) rangeAllowed(w http.ResponseWriter, r *http.Request) error {
	var bucket string
	switch s.Range.Access {
	case RangeOff:
		return newError(codeRangeAPIOff, "the range API is off on this server: its operator can enable it with -range-api key or -range-api public")
	case RangePublic:
		bucket = clientKey(r)
	default:
		key := r.Header.Get(apiKeyHeader)
		if key == "" {
			key = r.Header.Get(hibpKeyHeader)
		}
		who, err := s.callerForKey(r.Context(), key)
		if isKeyRefusal(err) {
			return errRangeKey
		}
		if err != nil {
			return err
		}
		bucket = "key:" + strconv.FormatInt(who.key.ID, 10)
	}
	if ok, wait := s.rangeLimiter.allow(bucket, time.Now()); !ok {
		return rateLimited(w, wait)
	}
	return nil
}
