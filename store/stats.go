package store

import "context"

// Stats are the database's figures for monitoring.
type Stats struct {
	// SizeBytes is the main file's pages times the page size; the
	// write-ahead log is not counted. On PostgreSQL it is the database's
	// size (pg_database_size).
	SizeBytes int64
	// WALBytes is the size of SQLite's write-ahead log file (the
	// checkpointer keeps it bounded: checkpoint.go); 0 on PostgreSQL,
	// whose log is its own.
	WALBytes int64
	// ReadConnections and WriteConnections are the pools' open
	// connections; PostgreSQL's one pool counts as both.
	ReadConnections, WriteConnections int
}

// Stats reads the database's size, its WAL's and the pools' connection
// counts.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var size int64
	query := "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
	if s.backend == Postgres {
		query = "SELECT pg_database_size(current_database())"
	}
	if err := s.read.QueryRowContext(ctx, query).Scan(&size); err != nil {
		return Stats{}, err
	}
	var wal int64
	if s.checkpoints != nil {
		var err error
		if wal, err = s.checkpoints.walBytes(); err != nil {
			return Stats{}, err
		}
	}
	return Stats{
		SizeBytes:        size,
		WALBytes:         wal,
		ReadConnections:  s.read.Stats().OpenConnections,
		WriteConnections: s.write.Stats().OpenConnections,
	}, nil
}
