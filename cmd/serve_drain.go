package cmd

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// defaultDrain is -drain's default: longer than a load balancer's health
// check takes to mark an instance down at a check a second (HAProxy's
// "inter 1s fall 2" in docs/SEVERAL-INSTANCES.md), short enough for a
// service manager's stop timeout.
const defaultDrain = 5 * time.Second

// drain is serve's -drain. Stopped by SIGTERM, as a service manager stops
// it, serve first drains for grace: GET /health answers 503 "draining"
// while every route still answers, so that a load balancer's health check
// takes the instance out before it stops serving, and no request sent in
// the meantime fails. Then it shuts down as it does at once on an
// interrupt.
type drain struct {
	grace time.Duration
	on    atomic.Bool
}

// draining is the server's Deps.Draining.
func (d *drain) draining() bool { return d.on.Load() }

// closeConnections makes every answer given while draining close its
// connection ("Connection: close"): a client or balancer that keeps
// connections open sends its next request on a new one (to another
// instance once this one is out), and shutdown finds no idle connection
// that a request might be on its way to.
func (d *drain) closeConnections(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.on.Load() {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}

// run drains when ctx was ended by SIGTERM (errTerminated) and grace is
// not 0: until grace has passed, a server failed (its error is returned),
// or a second signal asks to stop at once.
func (d *drain) run(ctx context.Context, serveErrs <-chan error, logger *slog.Logger) error {
	if d.grace <= 0 || !errors.Is(context.Cause(ctx), errTerminated) {
		return nil
	}
	again := make(chan os.Signal, 1)
	signal.Notify(again, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(again)
	d.on.Store(true)
	logger.Info("draining: /health answers 503 while requests are still served (a second signal stops at once)", "for", d.grace.String())
	timer := time.NewTimer(d.grace)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-again:
	case err := <-serveErrs:
		return err
	}
	return nil
}
