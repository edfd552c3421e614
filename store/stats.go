package store

import (
	"context"
	"time"
)

// Stats are the database's figures for monitoring.
type Stats struct {
	// SizeBytes is the main file's pages times the page size; the
	// write-ahead log is not counted. On PostgreSQL it is the database's
	// size (pg_database_size).
	SizeBytes int64
	// ReadConnections and WriteConnections are the pools' open
	// connections; PostgreSQL's one pool counts as both.
	ReadConnections, WriteConnections int
}

// Stats reads the database's size and the pools' connection counts.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var size int64
	query := "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
	if s.backend == Postgres {
		query = "SELECT pg_database_size(current_database())"
	}
	if err := s.read.QueryRowContext(ctx, query).Scan(&size); err != nil {
		return Stats{}, err
	}
	return Stats{
		SizeBytes:        size,
		ReadConnections:  s.read.Stats().OpenConnections,
		WriteConnections: s.write.Stats().OpenConnections,
	}, nil
}

// MeterObserver is told of every usage transaction: how many charges it
// carried and how long its commit took.
type MeterObserver func(charges int, commit time.Duration)

// ObserveMeter sets the observer of usage transactions (nil removes it).
func (s *Store) ObserveMeter(fn MeterObserver) { s.meter.observer.Store(&fn) }

// SetClients tells the meter how many clients could be waiting for their
// calls to commit: the server's connections that started a request
// lately (idle keep-alive connections do not count). A batch with calls from
// half of them is committed at once, without waiting out the rest of the
// gather window. Without it (nil), every batch under concurrency waits the
// whole window.
func (s *Store) SetClients(clients func() int) { s.meter.clients.Store(&clients) }

// observe reports one committed (or failed) transaction to the observer.
func (m *meter) observe(charges int, took time.Duration) {
	if fn := m.observer.Load(); fn != nil && *fn != nil {
		(*fn)(charges, took)
	}
}
