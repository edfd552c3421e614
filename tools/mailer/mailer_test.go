package mailer_test

import (
	"context"
	"errors"
	"net"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"secutil/tools/mailer"
)

// listen starts a local relay that hands each connection to serve.
func listen(t *testing.T, serve func(net.Conn)) *mailer.SMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				serve(conn)
			}()
		}
	}()
	s, err := mailer.NewSMTP("smtp://" + ln.Addr().String() + "?from=secutil@example.com")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// silent accepts a connection and never says a word, like a stuck relay.
func silent(conn net.Conn) { conn.Read(make([]byte, 1)) }

func TestSendGivesUpOnASilentRelay(t *testing.T) {
	s := listen(t, silent)
	for _, tt := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := tt.ctx()
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- s.Send(ctx, "user@example.com", "code", "123456") }()
			select {
			case err := <-done:
				if !errors.Is(err, tt.want) {
					t.Fatalf("got %v, want %v", err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Send still waits on the relay 5s after its context ended at 200ms")
			}
		})
	}
}

// relay speaks just enough SMTP to take one mail and hands its DATA to got.
func relay(got chan<- string) func(net.Conn) {
	return func(conn net.Conn) {
		tp := textproto.NewConn(conn)
		tp.PrintfLine("220 fake relay")
		for {
			line, err := tp.ReadLine()
			if err != nil {
				return
			}
			switch verb, _, _ := strings.Cut(line, " "); strings.ToUpper(verb) {
			case "EHLO":
				tp.PrintfLine("250 fake relay")
			case "DATA":
				tp.PrintfLine("354 go on")
				body, err := tp.ReadDotLines()
				if err != nil {
					return
				}
				got <- strings.Join(body, "\n")
				tp.PrintfLine("250 queued")
			case "QUIT":
				tp.PrintfLine("221 bye")
				return
			default: // MAIL, RCPT
				tp.PrintfLine("250 ok")
			}
		}
	}
}

func TestSendDelivers(t *testing.T) {
	got := make(chan string, 1)
	s := listen(t, relay(got))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Send(ctx, "user@example.com", "secutil code", "your code:\n123456"); err != nil {
		t.Fatal(err)
	}
	msg := <-got
	for _, want := range []string{"From: secutil@example.com", "To: user@example.com", "Subject: secutil code", "your code:\n123456"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestSendRefusesHeaderInjection(t *testing.T) {
	s := listen(t, func(net.Conn) { t.Error("a refused mail must not connect") })
	if err := s.Send(context.Background(), "user@example.com\r\nBcc: x@example.com", "code", "1"); err == nil {
		t.Fatal("a line break in a header was accepted")
	}
}
