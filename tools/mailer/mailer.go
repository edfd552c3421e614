// Package mailer delivers verification codes: by SMTP when configured, or
// into the server log for air-gapped installs that have no mail relay.
package mailer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// Sender delivers one plain-text message.
type Sender interface {
	Send(ctx context.Context, to, subject, body string) error
}

// Log writes messages to the log instead of sending them. An operator of an
// air-gapped install reads the code there and hands it to the user; this is
// the one place a one-time code is deliberately logged.
type Log struct{ Logger *slog.Logger }

func (l Log) Send(_ context.Context, to, subject, body string) error {
	l.Logger.Info("mail not sent (no -smtp-url); delivering to the log", "to", to, "subject", subject, "body", body)
	return nil
}

// SMTP sends through a relay named by a URL:
// smtp://user:password@host:587?from=secutil@example.com (STARTTLS when the
// server offers it, as net/smtp does).
type SMTP struct {
	addr string
	host string
	from string
	auth smtp.Auth
}

// sendTimeout bounds one delivery when the caller's context allows longer:
// a mail is sent while a request waits, and a stuck relay must not hold it.
const sendTimeout = 15 * time.Second

// NewSMTP parses an smtp:// URL.
func NewSMTP(raw string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "smtp" || u.Host == "" {
		return nil, errors.New("smtp url must look like smtp://user:password@host:587?from=secutil@example.com")
	}
	host := u.Hostname()
	port := u.Port()
	if port == "" {
		port = "587"
	}
	from := u.Query().Get("from")
	if from == "" {
		from = "secutil@" + host
	}
	s := &SMTP{addr: net.JoinHostPort(host, port), host: host, from: from}
	if u.User != nil {
		password, _ := u.User.Password()
		s.auth = smtp.PlainAuth("", u.User.Username(), password, host)
	}
	return s, nil
}

// Send delivers one message. It gives up when ctx ends or after
// sendTimeout, whichever comes first, however the relay behaves.
func (s *SMTP) Send(ctx context.Context, to, subject, body string) error {
	if strings.ContainsAny(to+subject, "\r\n") {
		return errors.New("mail header contains a line break")
	}
	msg := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n",
		s.from, to, subject, strings.ReplaceAll(body, "\n", "\r\n"))
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("mailer: connect to %s: %w", s.addr, err)
	}
	defer conn.Close()
	// When ctx ends (its deadline, or the client went away), a deadline of
	// now fails the read or write the conversation is blocked in. Setting it
	// only then means every such failure finds ctx.Err() set.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if err := s.converse(conn, to, []byte(msg)); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("mailer: send through %s: %w", s.addr, ctx.Err())
		}
		return fmt.Errorf("mailer: send through %s: %w", s.addr, err)
	}
	return nil
}

// converse runs the SMTP conversation of smtp.SendMail on conn: STARTTLS
// when the relay offers it, AUTH when credentials are given, then the mail.
func (s *SMTP) converse(conn net.Conn, to string, msg []byte) error {
	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: s.host}); err != nil {
			return err
		}
	}
	if s.auth != nil {
		if ok, _ := c.Extension("AUTH"); !ok {
			return errors.New("the relay does not offer AUTH")
		}
		if err := c.Auth(s.auth); err != nil {
			return err
		}
	}
	if err := c.Mail(s.from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}
