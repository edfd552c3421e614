package server

import (
	"net"
	"net/http"
	"testing"
	"time"
)

// TestActiveConnectionsCountsConnectionsInUse: the meter's count of clients
// is the connections a request started on since the last count, or still
// serving one (HTTP/2 reports a busy spell once), not the open ones: a pool
// of idle keep-alive connections counts only those it uses, and a closed
// connection not at all.
func TestActiveConnectionsCountsConnectionsInUse(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	conns := make([]net.Conn, 4)
	for i := range conns {
		conns[i], _ = net.Pipe()
		m.ConnState(conns[i], http.StateNew)
	}
	m.ConnState(conns[0], http.StateActive)
	m.ConnState(conns[1], http.StateActive)
	m.ConnState(conns[1], http.StateIdle)
	m.ConnState(conns[2], http.StateActive)
	m.ConnState(conns[2], http.StateClosed)
	m.lastCount.Store(0) // the last count is old
	if got := m.activeConnections(); got != 2 {
		t.Errorf("active connections %d, want 2 (of 4 open, one closed, one never used)", got)
	}
	m.lastCount.Store(time.Now().Add(-activeCountEvery).UnixNano())
	if got := m.activeConnections(); got != 1 {
		t.Errorf("active connections %d after a count with no request started since, want 1 (conns[0], still serving)", got)
	}
	m.ConnState(conns[0], http.StateIdle)
	m.lastCount.Store(time.Now().Add(-activeCountEvery).UnixNano())
	if got := m.activeConnections(); got != 0 {
		t.Errorf("active connections %d with every connection idle and no request started, want 0", got)
	}
	m.ConnState(conns[3], http.StateActive)
	m.lastCount.Store(time.Now().UnixNano()) // counted just now
	if got := m.activeConnections(); got != 0 {
		t.Errorf("active connections %d, want the last count (0) until it is %v old", got, activeCountEvery)
	}
}
