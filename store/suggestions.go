package store

import (
	"context"
	"time"
)

// Suggestion is a feature suggestion from a user.
type Suggestion struct {
	ID        int64
	AccountID int64
	Email     string
	Message   string
	CreatedAt time.Time
}

// Suggestions lists suggestions newest first, at most limit from offset.
func (s *Store) Suggestions(ctx context.Context, limit, offset int) ([]Suggestion, error) {
	suggestions, err := s.suggestions(ctx, limit, offset)
	return suggestions, wrap("suggestions", err)
}

func (s *Store) suggestions(ctx context.Context, limit, offset int) ([]Suggestion, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT id, coalesce(account_id, 0), coalesce(email, ''), message, created_at FROM suggestions ORDER BY id DESC LIMIT $1 OFFSET $2`,
		limit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Suggestion
	for rows.Next() {
		var sg Suggestion
		var created int64
		if err := rows.Scan(&sg.ID, &sg.AccountID, &sg.Email, &sg.Message, &created); err != nil {
			return nil, err
		}
		sg.CreatedAt = time.Unix(created, 0).UTC()
		out = append(out, sg)
	}
	return out, rows.Err()
}
