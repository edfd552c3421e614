package server

import (
	"fmt"
	"net/http"
)

// HostCheck gives a side listener's handler (-metrics-addr, -pprof-addr)
// the Host check the API's listener has: a request naming a host outside
// names answers 421 host_not_allowed, so a DNS-rebinding page that made its
// own name point at a loopback listener cannot read it. names are as in
// Deps.AllowedHosts: empty, or holding "*", checks nothing.
func HostCheck(names []string, next http.Handler) http.Handler {
	allowed := hostSet(names)
	if allowed == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[hostName(r.Host)] {
			msg := fmt.Sprintf("this listener does not answer for the host %q (see -allowed-hosts)", truncate(r.Host, 100))
			writeJSON(w, codeHostNotAllowed.Status, errorBody{Error: msg, Code: codeHostNotAllowed.Name})
			return
		}
		next.ServeHTTP(w, r)
	})
}
