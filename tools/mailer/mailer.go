// Package mailer delivers verification codes: by SMTP when configured, or
// into the server log for air-gapped installs that have no mail relay.
package mailer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/smtp"
	"net/url"
	"strings"
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
	from string
	auth smtp.Auth
}

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
	s := &SMTP{addr: net.JoinHostPort(host, port), from: from}
	if u.User != nil {
		password, _ := u.User.Password()
		s.auth = smtp.PlainAuth("", u.User.Username(), password, host)
	}
	return s, nil
}

func (s *SMTP) Send(_ context.Context, to, subject, body string) error {
	if strings.ContainsAny(to+subject, "\r\n") {
		return errors.New("mail header contains a line break")
	}
	msg := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n",
		s.from, to, subject, strings.ReplaceAll(body, "\n", "\r\n"))
	return smtp.SendMail(s.addr, s.auth, s.from, []string{to}, []byte(msg))
}
