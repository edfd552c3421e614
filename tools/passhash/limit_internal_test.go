package passhash

import (
	"os"
	"testing"
	"time"
)

// derivationsAtStart is the number of keys derived before any test ran:
// package initialisation must derive none.
var derivationsAtStart int64

func TestMain(m *testing.M) {
	derivationsAtStart = derivations.Load()
	os.Exit(m.Run())
}

func TestNoKeyDerivationAtInit(t *testing.T) {
	if derivationsAtStart != 0 {
		t.Fatalf("%d argon2 keys derived while the package initialised; want 0", derivationsAtStart)
	}
}

// Verify and VerifyNothing wait for a free slot, as Hash does: with every
// slot taken, neither derives a key until one is given back.
func TestVerifyWaitsForASlot(t *testing.T) {
	encoded, err := Hash("known", Params{MemoryKiB: 64, Time: 1, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	for name, verify := range map[string]func(){
		"Verify":        func() { _, _ = Verify("known", encoded) },
		"VerifyNothing": func() { VerifyNothing("unknown") },
	} {
		t.Run(name, func(t *testing.T) {
			for range cap(slots) {
				slots <- struct{}{}
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				verify()
			}()
			waitFor(t, func() bool { return waiting.Load() == 1 })
			select {
			case <-done:
				t.Fatal("verified with every slot taken")
			default:
			}
			for range cap(slots) {
				<-slots
			}
			<-done
		})
	}
}

// waitFor polls cond until it holds, failing the test after 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no call is waiting for a slot")
		}
	}
}
