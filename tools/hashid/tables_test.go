package hashid

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// coldStart, set in the environment, leaves the tables unbuilt when the
// test binary starts, for TestFirstUse.
const coldStart = "HASHID_TEST_COLD_START"

// TestMain builds the tables first: the internal tests read formats and
// byName directly, which only a call such as Identify fills in.
func TestMain(m *testing.M) {
	if os.Getenv(coldStart) == "" {
		loadTables()
	}
	os.Exit(m.Run())
}

// TestFirstUse: the tables are not built at package init, and the first
// calls, made at once from many goroutines, all see them whole. It runs
// itself again in a fresh process, where nothing has built them yet (run
// the package with -race to check the first use for data races).
func TestFirstUse(t *testing.T) {
	t.Parallel()
	if os.Getenv(coldStart) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstUse$", "-test.v")
		cmd.Env = append(os.Environ(), coldStart+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("cold start: %v\n%s", err, out)
		}
		return
	}
	if len(formats) != 0 {
		t.Fatalf("%d formats built before the first call", len(formats))
	}
	const callers = 8
	estimates := make([]string, callers)
	counts := make([]int, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			if i%2 == 0 {
				counts[i] = Formats()
			}
			estimates[i] = Identify("$2y$10$wbeg1GjKba19I1asm/U3Su/5UBo7R4ezVHuRHgCzvxcRiRhrxp5NK").Estimate
		})
	}
	wg.Wait()
	for i := range callers {
		if estimates[i] != "bcrypt" || i%2 == 0 && counts[i] != len(formats) {
			t.Errorf("caller %d: estimate %q, %d formats (want bcrypt, %d)", i, estimates[i], counts[i], len(formats))
		}
	}
}
