package store

import (
	"cmp"
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"time"
)

// MaxKeysPerAccount bounds how many named keys one account may hold.
const MaxKeysPerAccount = 20

// ErrTooManyKeys is returned when issuing a new key name past the limit.
var ErrTooManyKeys = errors.New("an account holds at most 20 API keys; revoke one first")

// Key is a stored API key (its hash, never the key).
type Key struct {
	ID         int64
	AccountID  int64
	Name       string
	Hint       string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	Calls      int // metered calls made with it this month (Keys only)
}

// IssueKey stores a key under name for the account, replacing (and so
// revoking, RevokedRotated) any previous key of that name.
func (s *Store) IssueKey(ctx context.Context, accountID int64, name string, hash []byte, hint string) error {
	if hasNUL(name, hint) {
		return ErrInvalidText
	}
	defer s.auth.invalidate()
	return wrap("issue key", s.inTx(ctx, func(tx *sql.Tx) error {
		// The account first, so that two issuances for it (on two servers)
		// take turns: the key limit and the name's replacement then hold
		// whatever the timing.
		if found, err := s.lockAccount(ctx, tx, accountID); !found {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		if err := s.retireKeysWhere(ctx, tx, RevokedRotated, `account_id = $3 AND name = $4`, accountID, name); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx,
			`UPDATE api_keys SET hash = $1, hint = $2, created_at = $3, last_used_at = NULL WHERE account_id = $4 AND name = $5`,
			hash, hint, unix(s.now()), accountID, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
		var count int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE account_id = $1`, accountID).Scan(&count); err != nil {
			return err
		}
		if count >= MaxKeysPerAccount {
			return ErrTooManyKeys
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO api_keys (account_id, name, hash, hint, created_at) VALUES ($1, $2, $3, $4, $5)`,
			accountID, name, hash, hint, unix(s.now()))
		return err
	}))
}

// RotateKey replaces the key with id keyID by a new one of the same name,
// and records the old one as revoked (RevokedRotated). It fails with
// ErrNotFound when oldHash no longer names that key, so two concurrent
// rotations of one key cannot both succeed.
func (s *Store) RotateKey(ctx context.Context, keyID int64, oldHash, newHash []byte, newHint string) error {
	defer s.auth.invalidate()
	return wrap("rotate key", s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.retireKeysWhere(ctx, tx, RevokedRotated, `id = $3 AND hash = $4`, keyID, oldHash); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx,
			`UPDATE api_keys SET hash = $1, hint = $2, created_at = $3, last_used_at = NULL WHERE id = $4 AND hash = $5`,
			newHash, newHint, unix(s.now()), keyID, oldHash)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, ErrNotFound)
		}
		return nil
	}))
}

// RevokeKey deletes the account's key called name, and records it as
// revoked (RevokedByOwner). Its calls stay in the account's days, moved to
// key 0, so a later key that gets the same id does not inherit them.
func (s *Store) RevokeKey(ctx context.Context, accountID int64, name string) error {
	if hasNUL(name) {
		return ErrNotFound // no key can have it
	}
	defer s.auth.invalidate()
	return wrap("revoke key", s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.retireKeysWhere(ctx, tx, RevokedByOwner, `account_id = $3 AND name = $4`, accountID, name); err != nil {
			return err
		}
		var keyID int64
		err := tx.QueryRowContext(ctx, `DELETE FROM api_keys WHERE account_id = $1 AND name = $2 RETURNING id`, accountID, name).Scan(&keyID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO usage_days (account_id, day, key_id, count)
			SELECT account_id, day, 0, count FROM usage_days WHERE account_id = $1 AND key_id = $2
			ON CONFLICT (account_id, day, key_id) DO UPDATE SET count = usage_days.count + excluded.count`, accountID, keyID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM usage_days WHERE account_id = $1 AND key_id = $2`, accountID, keyID)
		return err
	}))
}

// KeyByHash finds the live key whose SHA-256 is hash and its account.
func (s *Store) KeyByHash(ctx context.Context, hash []byte) (*Key, *Account, error) {
	var cacheKey [32]byte
	if len(hash) != len(cacheKey) {
		k, a, err := s.keyByHash(ctx, hash) // not a SHA-256: never cached
		return k, a, wrap("key by hash", err)
	}
	copy(cacheKey[:], hash)
	now := s.now()
	if k, a, ok := s.auth.get(cacheKey, now); ok {
		return k, a, nil
	}
	generation := s.auth.generation.Load()
	var (
		k *Key
		a *Account
	)
	err := s.retry(ctx, func() (err error) {
		k, a, err = s.keyByHash(ctx, hash)
		return err
	})
	if err != nil {
		return nil, nil, wrap("key by hash", err)
	}
	s.auth.put(cacheKey, generation, now, k, a)
	return k, a, nil
}

func (s *Store) keyByHash(ctx context.Context, hash []byte) (*Key, *Account, error) {
	var (
		k        Key
		stored   []byte
		created  int64
		lastUsed sql.NullInt64
	)
	row := s.read.QueryRowContext(ctx,
		`SELECT k.id, k.name, k.hint, k.hash, k.created_at, k.last_used_at, `+accountColumnsOf("a")+`
		   FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`, hash)
	a, err := scanAccount(row, &k.ID, &k.Name, &k.Hint, &stored, &created, &lastUsed)
	if err != nil {
		return nil, nil, err
	}
	// The index found the row by equality; compare again in constant time so
	// no code path ever branches on a partial match of a secret's hash.
	if subtle.ConstantTimeCompare(stored, hash) != 1 {
		return nil, nil, ErrNotFound
	}
	k.AccountID = a.ID
	k.CreatedAt = time.Unix(created, 0).UTC()
	k.LastUsedAt = fromUnix(lastUsed)
	return &k, a, nil
}

// KeyByName finds the account's key called name.
func (s *Store) KeyByName(ctx context.Context, accountID int64, name string) (*Key, error) {
	keys, err := s.Keys(ctx, accountID)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.Name == name {
			return &k, nil
		}
	}
	return nil, ErrNotFound
}

// Keys lists an account's keys by name, each with its calls this month.
func (s *Store) Keys(ctx context.Context, accountID int64) ([]Key, error) {
	keys, err := s.keys(ctx, accountID)
	return keys, wrap("keys", err)
}

func (s *Store) keys(ctx context.Context, accountID int64) ([]Key, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT k.id, k.account_id, k.name, k.hint, k.created_at, k.last_used_at,
		        coalesce((SELECT sum(d.count) FROM usage_days d WHERE d.account_id = k.account_id AND d.key_id = k.id AND d.day >= $1), 0)
		   FROM api_keys k WHERE k.account_id = $2 ORDER BY k.name`, Period(s.now())+"-01", accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []Key
	for rows.Next() {
		var k Key
		var created int64
		var lastUsed sql.NullInt64
		if err := rows.Scan(&k.ID, &k.AccountID, &k.Name, &k.Hint, &created, &lastUsed, &k.Calls); err != nil {
			return nil, err
		}
		k.CreatedAt = time.Unix(created, 0).UTC()
		k.LastUsedAt = fromUnix(lastUsed)
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// Why a key stopped working, as RevokedKey reports it.
const (
	// RevokedByOwner: revoked on the dashboard.
	RevokedByOwner = "revoked"
	// RevokedRotated: a new key of the same name replaced it (a rotation, or
	// a key issued again under its name).
	RevokedRotated = "rotated"
	// RevokedPasswordSet: revoked with every key of its account when the
	// account's password was reset, changed or set by an operator.
	RevokedPasswordSet = "password_set"
	// RevokedAccountDeleted: its account was deleted.
	RevokedAccountDeleted = "account_deleted"
)

// RevokedKeysKept is how long the hash of a revoked key is kept to say
// so; the sweep (DeleteOldRevokedKeys) deletes older ones, which bounds
// the table by the keys revoked in that window, and such a key then reads
// as one never made here.
const RevokedKeysKept = 90 * 24 * time.Hour

// RevokedKey is when and why a key stopped working.
type RevokedKey struct {
	At     time.Time
	Reason string // one of the Revoked* reasons
}

// RevokedKey finds the key whose SHA-256 is hash among the keys revoked
// in the last RevokedKeysKept (not yet swept): ErrNotFound when it is not
// one. A key that is live is not one either: KeyByHash first.
func (s *Store) RevokedKey(ctx context.Context, hash []byte) (*RevokedKey, error) {
	var (
		at     int64
		reason string
	)
	err := s.retry(ctx, func() error {
		err := s.read.QueryRowContext(ctx, `SELECT revoked_at, reason FROM revoked_keys WHERE hash = $1`, hash).Scan(&at, &reason)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return nil, wrap("revoked key", err)
	}
	return &RevokedKey{At: time.Unix(at, 0).UTC(), Reason: reason}, nil
}

// DeleteOldRevokedKeys deletes the revoked keys older than
// RevokedKeysKept and returns how many it deleted.
func (s *Store) DeleteOldRevokedKeys(ctx context.Context) (int64, error) {
	return s.deleteWhere(ctx, "delete old revoked keys", `DELETE FROM revoked_keys WHERE revoked_at <= $1`, unix(s.now().Add(-RevokedKeysKept)))
}

// retireKeysWhere records every key that where (a condition on api_keys
// whose placeholders start at $3, filled by args) selects as revoked now,
// for reason, in tx: the transaction that then deletes or replaces them. A
// hash recorded before takes the later time and reason.
func (s *Store) retireKeysWhere(ctx context.Context, tx *sql.Tx, reason, where string, args ...any) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO revoked_keys (hash, revoked_at, reason)
		SELECT hash, $1, $2 FROM api_keys WHERE `+where+`
		ON CONFLICT (hash) DO UPDATE SET revoked_at = excluded.revoked_at, reason = excluded.reason`,
		append([]any{unix(s.now()), reason}, args...)...)
	return err
}
