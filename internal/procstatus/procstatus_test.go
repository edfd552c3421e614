package procstatus_test

import (
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"

	"secutil/internal/procstatus"
)

// The figures of this process and of a child, in bytes: the peak follows
// what the process touches, from where ResetPeak left it.
func TestBytes(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, err := procstatus.Bytes(procstatus.Self, procstatus.Resident); err != procstatus.ErrNoProc {
			t.Fatalf("without /proc: %v, want ErrNoProc", err)
		}
		t.Skip("no /proc")
	}
	// The peak starts again from what the process holds once the memory
	// a run before this one used is given back.
	debug.FreeOSMemory()
	if err := procstatus.ResetPeak(); err != nil {
		t.Fatal(err)
	}
	resident, err := procstatus.Bytes(procstatus.Self, procstatus.Resident)
	before := procstatus.PeakRSS(t, procstatus.Self)
	if err != nil || resident <= 0 || resident > before {
		t.Fatalf("resident %d, %v; want above 0 and at most the peak %d", resident, err, before)
	}
	ballast := make([]byte, 64<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	if after := procstatus.PeakRSS(t, procstatus.Self); after < before+60<<20 {
		t.Errorf("the peak went from %d to %d bytes after touching 64 MiB", before, after)
	}
	runtime.KeepAlive(ballast)
	if got := procstatus.MiB(procstatus.PeakResident); got < 64 {
		t.Errorf("MiB(PeakResident) = %.1f, want at least 64", got)
	}

	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	if peak := procstatus.PeakRSS(t, child.Process.Pid); peak <= 0 {
		t.Errorf("the child's peak: %d bytes", peak)
	}
	if _, err := procstatus.Bytes(procstatus.Self, "NoSuchField"); err == nil {
		t.Error("a field the status lacks gave no error")
	}
}
