package store

import "context"

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
