package server

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serveContent is http.ServeContent for content held in memory, serving at
// most one byte range. A Range header other than one range that overlaps
// the content (several ranges, a malformed or unsatisfiable one) is
// ignored, as RFC 9110 section 14.2 allows: the answer is the whole content
// with 200, as though the request had no Range. Left to http.ServeContent,
// 15,000 one-byte ranges of /static/openapi.json cost 400 ms of CPU and
// made 2 MB of multipart/byteranges, for anyone; and a bad range got a
// plain-text 416. 200 rather than 416: the whole content still serves a
// client that asked for pieces, and no client of these resources needs
// several pieces of one answer.
//
// One range (Range: bytes=0-99, bytes=100- or bytes=-100) still gets 206.
// If-Range governs only Range: when it names another version the answer is
// whole, and once Range is dropped it has nothing to decide.
// If-None-Match and If-Modified-Since answer 304 either way.
func serveContent(w http.ResponseWriter, r *http.Request, name string, modtime time.Time, content []byte) {
	if header := r.Header.Get("Range"); header != "" && !oneSatisfiableRange(header, int64(len(content))) {
		r = r.Clone(r.Context())
		r.Header.Del("Range")
	}
	http.ServeContent(w, r, name, modtime, bytes.NewReader(content))
}

// oneSatisfiableRange reports whether a Range header asks for exactly one
// byte range that overlaps content of size bytes (RFC 9110 section 14.1.2):
// "bytes=" then first-last, first- or -suffix, in decimal digits, with
// first < size, first <= last and suffix > 0. It accepts no whitespace and
// no other unit; what it accepts, http.ServeContent answers with 206.
func oneSatisfiableRange(header string, size int64) bool {
	spec, ok := strings.CutPrefix(header, "bytes=")
	if !ok || size == 0 {
		return false
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok {
		return false
	}
	if first == "" {
		suffix, ok := rangePosition(last)
		return ok && suffix > 0
	}
	start, ok := rangePosition(first)
	if !ok || start >= size {
		return false
	}
	if last == "" {
		return true
	}
	end, ok := rangePosition(last)
	return ok && start <= end
}

// rangePosition parses a non-empty run of ASCII digits that fits an int64.
func rangePosition(s string) (int64, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
