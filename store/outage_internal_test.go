package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestUnreachableTellsAnOutageFromARefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, true},
		{"crash shutdown", &pgconn.PgError{Code: "57P02"}, true},
		{"starting or stopping", fmt.Errorf("connect: %w", &pgconn.PgError{Code: "57P03"}), true},
		{"connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"cut mid-answer", fmt.Errorf("receive: %w", io.ErrUnexpectedEOF), true},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"query canceled", &pgconn.PgError{Code: "57014"}, false},
		{"no rows", sql.ErrNoRows, false},
		{"deadline of a slow answer", fmt.Errorf("receive: %w", context.DeadlineExceeded), false},
		{"caller gone", context.Canceled, false},
		{"nothing", nil, false},
	} {
		if got := unreachable(tc.err); got != tc.want {
			t.Errorf("%s: unreachable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
		if wrapped := wrap("op", tc.err); tc.err != nil && errors.Is(wrapped, ErrUnavailable) != tc.want {
			t.Errorf("%s: wrap gives %v, ErrUnavailable %v", tc.name, wrapped, !tc.want)
		}
	}
}
