package main

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"secutil/cmd/cmdtest"
	"secutil/store/pgtest"
)

// TestTwoInstancesOnePostgres runs two secutil processes on one PostgreSQL
// database, as behind a load balancer, and checks what must not depend on
// which one a call reaches: the plan's cap, revocation and the account's
// brute-force limit, a disabled account.
func TestTwoInstancesOnePostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs two servers")
	}
	db := pgtest.URL(t)
	bin := secutilBinary(t)
	const adminToken = "an-admin-token-of-enough-length"
	for _, email := range []string{"cap@example.com", "keys@example.com", "guess@example.com"} {
		if out, err := runCommand(bin, "user", "add", "-db", db, "-email", email, "-password", cmdtest.Password, "-plan", "starter"); err != nil {
			t.Fatalf("user add: %v\n%s", err, out)
		}
	}
	// The hash index plays no part: the servers share the seeded one.
	_, a, _, _ := startBinary(t, bin, db, "-admin-token", adminToken, "-hash-db", cmdtest.SharedHashDB(t))
	_, b, _, _ := startBinary(t, bin, db, "-admin-token", adminToken, "-hash-db", cmdtest.SharedHashDB(t))
	instances := []string{a, b}
	if _, m := cmdtest.RequestJSON(t, http.MethodGet, a+"/health", nil); m["backend"] != "postgres" {
		t.Fatalf("health = %v", m)
	}

	t.Run("cap", func(t *testing.T) {
		key := getKey(t, a, "cap@example.com", "default")
		statuses := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 300 {
			wg.Go(func() {
				status, _ := cmdtest.PostJSON(t, instances[i%2]+"/api/v1/base64", key, map[string]string{"text": "x", "option": "encode"})
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if statuses[200] != 100 || statuses[429] != 200 {
			t.Fatalf("statuses %v; want exactly 100×200 and 200×429 from an account with 100 calls left", statuses)
		}
		for _, base := range instances {
			if _, m := cmdtest.PostJSON(t, base+"/api/v1/user_info", key, nil); m["api_usage"] != float64(100) {
				t.Fatalf("user_info on %s: %v; want api_usage 100", base, m)
			}
		}
	})

	t.Run("revocation", func(t *testing.T) {
		works := func(base, key string) bool {
			status, _ := cmdtest.PostJSON(t, base+"/api/v1/user_info", key, nil)
			return status == http.StatusOK
		}
		stops := func(what, key string) {
			t.Helper()
			start := time.Now()
			for works(b, key) {
				if time.Since(start) > time.Second {
					t.Fatalf("%s on %s: the old key still works on %s after a second", what, a, b)
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Logf("%s: refused on the other instance after %v", what, time.Since(start).Round(time.Millisecond))
		}
		old := getKey(t, a, "keys@example.com", "default")
		works(b, old) // now in b's cache
		status, m := cmdtest.PostJSON(t, a+"/api/v1/new_api_key", old, nil)
		if status != 200 {
			t.Fatalf("new_api_key: %d %v", status, m)
		}
		stops("rotation", old)

		rotated := m["api_key"].(string)
		works(b, rotated)
		getKey(t, a, "keys@example.com", "default") // issuing the name again revokes its key
		stops("reissue", rotated)

		starter := getKey(t, a, "keys@example.com", "default")
		if _, m := cmdtest.PostJSON(t, b+"/api/v1/user_info", starter, nil); m["plan"] != "starter" {
			t.Fatalf("user_info: %v", m)
		}
		status, m = cmdtest.RequestJSON(t, http.MethodPost, a+"/boss/accounts/set_plan", map[string]any{"email": "keys@example.com", "plan": "pro"}, "Authorization", "Bearer "+adminToken)
		if status != 200 {
			t.Fatalf("set_plan: %d %v", status, m)
		}
		start := time.Now()
		for {
			if _, m := cmdtest.PostJSON(t, b+"/api/v1/user_info", starter, nil); m["plan"] == "pro" {
				break
			}
			if time.Since(start) > time.Second {
				t.Fatal("a plan changed on one instance is not seen on the other after a second")
			}
			time.Sleep(10 * time.Millisecond)
		}

		works(b, starter)
		status, m = cmdtest.RequestJSON(t, http.MethodPost, a+"/boss/accounts/disable", map[string]any{"email": "keys@example.com"}, "Authorization", "Bearer "+adminToken)
		if status != 200 {
			t.Fatalf("disable: %d %v", status, m)
		}
		stops("disabling the account", starter)
	})

	t.Run("brute force", func(t *testing.T) {
		// The per-account limit (10 tries a minute) is one bucket in the
		// database: spreading the tries over both instances gains nothing.
		// The tries go at once: one after the other, each waiting for the
		// password hash a wrong guess costs, they could span the 6 s in
		// which the bucket earns a try back on a busy machine.
		statuses := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Go(func() {
				status, _ := cmdtest.PostJSON(t, instances[i%2]+"/login", "", map[string]string{"email": "guess@example.com", "password": "wrong guess number " + fmt.Sprint(i)})
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if statuses[http.StatusUnauthorized] != 10 || statuses[http.StatusTooManyRequests] != 2 {
			t.Fatalf("statuses %v; want exactly 10×401 and 2×429 from 12 tries", statuses)
		}
	})
}
