// Package accesslog formats a request's access log line by hand, byte for
// byte as log/slog's text or JSON handler would write it (time, level INFO,
// msg "request", method, path, status, duration_ms), for paths that need no
// quoting, and says which lines are written with the access log off. A server writes it with one Write and no allocation per
// request; anything else goes through slog, so a log reader sees one
// format whichever path wrote a line.
package accesslog

import (
	"strconv"
	"sync/atomic"
	"time"
)

// Slow is how long a request may take before its line is written even
// with the access log off.
const Slow = time.Second

// Always reports whether a request's line is written even with the access
// log off (serve's -access-log off): a server error (5xx), which an
// operator must see, or a request that took Slow or longer.
func Always(status int, took time.Duration) bool {
	return status >= 500 || took >= Slow
}

// AppendLine appends the access log line slog's TextHandler (or, with
// asJSON, JSONHandler) writes for these attributes when given no options,
// for method and path that pass Plain: neither then needs quoting nor
// escaping.
func AppendLine(b []byte, asJSON bool, now time.Time, method, path string, status int, tookMS float64) []byte {
	if asJSON {
		b = append(b, `{"time":"`...)
		b = appendLogTime(b, now, false)
		b = append(b, `","level":"INFO","msg":"request","method":"`...)
		b = append(b, method...)
		b = append(b, `","path":"`...)
		b = append(b, path...)
		b = append(b, `","status":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, `,"duration_ms":`...)
		// encoding/json writes a float in the range of a duration in
		// milliseconds (0, or at least 0.001) as 'f' does.
		b = strconv.AppendFloat(b, tookMS, 'f', -1, 64)
		return append(b, "}\n"...)
	}
	b = append(b, "time="...)
	b = appendLogTime(b, now, true)
	b = append(b, " level=INFO msg=request method="...)
	b = append(b, method...)
	b = append(b, " path="...)
	b = append(b, path...)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, " duration_ms="...)
	b = strconv.AppendFloat(b, tookMS, 'g', -1, 64)
	return append(b, '\n')
}

// logSecond is the part of a log line's time that stays the same for a
// second: the date and time to the second, and the zone.
type logSecond struct {
	unix   int64
	loc    *time.Location
	prefix string // 2006-01-02T15:04:05
	zone   string // Z07:00
}

// lastLogSecond saves formatting the date, time and zone on every request:
// time.Time.AppendFormat was half the cost of an access log line.
var lastLogSecond atomic.Pointer[logSecond]

// appendLogTime appends t in RFC 3339 as slog writes it: the text handler
// with exactly three fractional digits (millis), the JSON handler as
// time.RFC3339Nano (up to nine, trailing zeros dropped).
func appendLogTime(b []byte, t time.Time, millis bool) []byte {
	sec := lastLogSecond.Load()
	if sec == nil || sec.unix != t.Unix() || sec.loc != t.Location() {
		sec = &logSecond{unix: t.Unix(), loc: t.Location(), prefix: t.Format("2006-01-02T15:04:05"), zone: t.Format("Z07:00")}
		lastLogSecond.Store(sec)
	}
	b = append(b, sec.prefix...)
	frac, digits := t.Nanosecond(), 9
	if millis {
		frac, digits = frac/int(time.Millisecond), 3
	} else {
		for frac != 0 && frac%10 == 0 {
			frac, digits = frac/10, digits-1
		}
	}
	if frac != 0 || millis {
		b = append(b, '.')
		for i := digits - 1; i >= 0; i-- {
			b = append(b, byte('0'+frac/pow10[i]%10))
		}
	}
	return append(b, sec.zone...)
}

var pow10 = [...]int{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000}

// Plain reports whether s is printable ASCII that neither slog's
// text handler quotes nor its JSON handler escapes: not empty, no space,
// '=', '"', backslash or control character; and, to be safe with any JSON
// encoder, none of '<', '>', '&'. A request path is almost always so; the
// rest go through slog.
func Plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c >= 0x7f, c == '=', c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
