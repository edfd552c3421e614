package store

import (
	"context"
	"time"
)

// Stats are the database's figures for monitoring.
type Stats struct {
	// SizeBytes is the main file's pages times the page size; the
	// write-ahead log is not counted.
	SizeBytes int64
	// ReadConnections and WriteConnections are the pools' open connections.
	ReadConnections, WriteConnections int
}

// Stats reads the database's size and the pools' connection counts.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var pages, pageSize int64
	err := s.read.QueryRowContext(ctx, "SELECT page_count, page_size FROM pragma_page_count(), pragma_page_size()").Scan(&pages, &pageSize)
	if err != nil {
		return Stats{}, err
	}
	return Stats{
		SizeBytes:        pages * pageSize,
		ReadConnections:  s.read.Stats().OpenConnections,
		WriteConnections: s.write.Stats().OpenConnections,
	}, nil
}

// MeterObserver is told of every usage transaction: how many charges it
// carried and how long its commit took.
type MeterObserver func(charges int, commit time.Duration)

// ObserveMeter sets the observer of usage transactions (nil removes it).
func (s *Store) ObserveMeter(fn MeterObserver) { s.meter.observer.Store(&fn) }

// observe reports one committed (or failed) transaction to the observer.
func (m *meter) observe(charges int, took time.Duration) {
	if fn := m.observer.Load(); fn != nil && *fn != nil {
		(*fn)(charges, took)
	}
}
