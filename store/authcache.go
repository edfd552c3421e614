package store

import (
	"sync"
	"sync/atomic"
	"time"
)

// authCache remembers key hash → (key, account) so a metered call does not
// query the database to authenticate. Any write to keys or accounts bumps a
// generation and so invalidates every entry at once: such writes are rare,
// and coarse invalidation cannot miss a path. An entry also expires after
// authCacheTTL, which bounds staleness from changes made by another process
// (an operator with sqlite3).
type authCache struct {
	generation atomic.Uint64
	mu         sync.RWMutex
	entries    map[[32]byte]authEntry
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
)

func newAuthCache() *authCache {
	return &authCache{entries: make(map[[32]byte]authEntry)}
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
}

// invalidate must be called after every committed write to api_keys or
// accounts (other than last_used_at bookkeeping).
func (c *authCache) invalidate() { c.generation.Add(1) }
