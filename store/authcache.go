package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"
)

// authCache remembers key hash → (key, account) so a metered call does not
// query the database to authenticate. Any change to keys or accounts bumps
// a generation and so invalidates every entry at once: such changes are
// rare, and coarse invalidation cannot miss a path.
//
// Changes made here bump it at once. Changes made elsewhere (another
// server on the same PostgreSQL database, the command line, an operator)
// bump the database's auth_generation by trigger; watchAuth notices within
// authPollInterval, and on PostgreSQL at once through LISTEN/NOTIFY. An
// entry also expires after authCacheTTL, a last bound on staleness.
type authCache struct {
	generation atomic.Uint64
	mu         sync.RWMutex
	entries    map[[32]byte]authEntry
	// inUse is closed when the first entry is stored: until then there is
	// nothing to invalidate, so the LISTEN connection waits for it (a server
	// or a command that never checks a key holds one connection fewer).
	inUse    chan struct{}
	firstUse sync.Once
}

type authEntry struct {
	generation uint64
	expires    time.Time
	key        Key
	account    Account
}

const (
	authCacheTTL  = 10 * time.Second
	authCacheSize = 10_000
	// authPollInterval is how often a server reads auth_generation: the
	// longest a key revoked on another server keeps working here when a
	// notification is missed.
	authPollInterval = 250 * time.Millisecond
)

func newAuthCache() *authCache {
	return &authCache{entries: make(map[[32]byte]authEntry), inUse: make(chan struct{})}
}

func (c *authCache) get(hash [32]byte, now time.Time) (*Key, *Account, bool) {
	c.mu.RLock()
	e, ok := c.entries[hash]
	c.mu.RUnlock()
	if !ok || e.generation != c.generation.Load() || now.After(e.expires) {
		return nil, nil, false
	}
	k, a := e.key, e.account
	return &k, &a, true
}

// put stores an entry read from the database under the generation observed
// before the read: if a write committed in between, the entry is born stale.
func (c *authCache) put(hash [32]byte, generation uint64, now time.Time, k *Key, a *Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= authCacheSize {
		clear(c.entries)
	}
	c.entries[hash] = authEntry{generation: generation, expires: now.Add(authCacheTTL), key: *k, account: *a}
	c.firstUse.Do(func() { close(c.inUse) })
}

// invalidate must be called after every committed write to api_keys or
// accounts (other than last_used_at bookkeeping).
func (c *authCache) invalidate() { c.generation.Add(1) }

// startWatchingAuth reads the database's auth generation and starts
// watchAuth.
func (s *Store) startWatchingAuth(ctx context.Context) error {
	seen, err := s.authGeneration(ctx)
	if err != nil {
		return err
	}
	s.watching, s.watched = make(chan struct{}), make(chan struct{})
	go s.watchAuth(s.watching, seen)
	return nil
}

func (s *Store) stopWatchingAuth() {
	if s.watching != nil {
		close(s.watching)
		<-s.watched
		s.watching = nil
	}
}

// watchAuth invalidates the auth cache when another process changed keys or
// accounts: at a notification (PostgreSQL, listened for from the cache's
// first entry on), or when auth_generation has moved since it last looked.
// A change that commits while the listener connects is a missed
// notification like one during a reconnection: the generation check catches
// it. A failed read invalidates too: a server that cannot tell must not
// trust what it cached.
func (s *Store) watchAuth(stop <-chan struct{}, seen int64) {
	defer close(s.watched)
	notified := make(chan struct{}, 1)
	if s.backend == Postgres {
		listening := make(chan struct{})
		defer func() { <-listening }()
		go func() {
			defer close(listening)
			select {
			case <-s.auth.inUse:
				s.listenAuth(stop, notified)
			case <-stop:
			}
		}()
	}
	ticker := time.NewTicker(authPollInterval)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-notified:
			s.auth.invalidate()
		case <-ticker.C:
			ctx, cancel := context.WithTimeout(context.Background(), authPollInterval)
			n, err := s.authGeneration(ctx)
			cancel()
			s.outage.observe(err) // twice a second: an outage is noticed, and its end, without traffic
			if err != nil || n != seen {
				seen = n
				s.auth.invalidate()
			}
		}
	}
}

func (s *Store) authGeneration(ctx context.Context) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, "SELECT n FROM auth_generation").Scan(&n)
	return n, err
}

// bumpAuthGeneration moves the database's auth generation in tx, for a
// change no trigger sees (a usage reset), and on PostgreSQL notifies the
// other servers when tx commits.
func (s *Store) bumpAuthGeneration(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE auth_generation SET n = n + 1`)
	if err == nil && s.backend == Postgres {
		_, err = tx.ExecContext(ctx, `SELECT pg_notify($1, '')`, authChannel)
	}
	return err
}
