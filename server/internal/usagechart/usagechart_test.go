package usagechart

import (
	"math"
	"strconv"
	"testing"
	"time"
)

func TestRoundStep(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]int{0: 1, 1: 1, 2: 2, 3: 5, 5: 5, 6: 10, 11: 20, 21: 50, 51: 100, 101: 200, 4001: 5000} {
		if got := roundStep(n); got != want {
			t.Errorf("roundStep(%d): got %d, want %d", n, got, want)
		}
	}
}

func TestLayoutChart(t *testing.T) {
	t.Parallel()
	october := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	november := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	last := make([]int, 31)
	last[30] = 3
	c := Layout(october, last, november, []int{0, 7})
	if c.ThisTotal != 7 || c.LastTotal != 3 || c.ThisMonth != "November 2026" || c.LastMonth != "October 2026" {
		t.Fatalf("totals and names: %+v", c)
	}
	// 7 calls at most: steps of 2, a scale up to 8.
	if got := c.Grid[len(c.Grid)-1].Mark.Label; got != "8" {
		t.Fatalf("top of the scale %s, want 8", got)
	}
	if len(c.Bars) != 33 {
		t.Fatalf("%d bars, want one a day: 31 + 2", len(c.Bars))
	}
	plotHeight := chartHeight - chartTop - chartBottom
	seven := c.Bars[32]
	if seven.Class != "this" || math.Abs(seven.H-plotHeight*7/8) > 1e-9 || math.Abs(seven.Y+seven.H-(chartTop+plotHeight)) > 1e-9 {
		t.Fatalf("the bar of 7 calls: %+v", seven)
	}
	if three := c.Bars[30]; three.Class != "last" || three.Title != "31 Oct: 3 items" {
		t.Fatalf("the bar of 31 October: %+v", three)
	}
	// Each day's slot holds last month's bar, then this month's.
	if oct2 := c.Bars[1]; oct2.X+oct2.W > seven.X || seven.X-oct2.X > (chartWidth-chartLeft-chartRight)/chartSlots {
		t.Fatalf("2 October at %v and 2 November at %v do not share a slot", oct2.X, seven.X)
	}
	for _, b := range c.Bars {
		if b.X < chartLeft || b.X+b.W > chartWidth-chartRight || b.H < 0 {
			t.Fatalf("a bar outside the plot: %+v", b)
		}
	}
	// Today is 2 November, the last day of this month's counts: its rule
	// runs down that day's slot, beside its bar.
	slotOf := func(x float64) int {
		return int((x - chartLeft) / ((chartWidth - chartLeft - chartRight) / chartSlots))
	}
	if today := c.Today; slotOf(today.X) != 1 || slotOf(seven.X) != 1 || today.Title != "Today, 2 Nov" ||
		today.Y1 != chartTop || today.Y2 != chartTop+plotHeight {
		t.Fatalf("today's rule %+v, its bar %+v", today, seven)
	}
}

// FuzzLayout: whatever the counts, every bar stays in the plot, the totals
// add up and the scale's top is at least the highest count.
func FuzzLayout(f *testing.F) {
	f.Add([]byte{0, 7, 3}, []byte{200, 1})
	f.Add([]byte{}, []byte{255, 255, 255})
	f.Fuzz(func(t *testing.T, lastCounts, thisCounts []byte) {
		october := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
		november := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		last, this := counts(lastCounts), counts(thisCounts)
		c := Layout(october, last, november, this)
		highest, lastTotal, thisTotal := 0, 0, 0
		for _, n := range last {
			lastTotal += n
			highest = max(highest, n)
		}
		for _, n := range this {
			thisTotal += n
			highest = max(highest, n)
		}
		if c.LastTotal != lastTotal || c.ThisTotal != thisTotal || len(c.Bars) != len(last)+len(this) {
			t.Fatalf("totals %d, %d and %d bars for %v and %v", c.LastTotal, c.ThisTotal, len(c.Bars), last, this)
		}
		if top, err := strconv.Atoi(c.Grid[len(c.Grid)-1].Mark.Label); err != nil || top < highest {
			t.Fatalf("scale top %s (%v) below the highest count %d", c.Grid[len(c.Grid)-1].Mark.Label, err, highest)
		}
		for _, b := range c.Bars {
			if b.X < chartLeft || b.X+b.W > chartWidth-chartRight || b.H < 0 || b.Y < chartTop-1e-9 || b.Y+b.H > chartHeight-chartBottom+1e-9 {
				t.Fatalf("a bar outside the plot: %+v", b)
			}
		}
	})
}

// counts reads at most a month of daily counts from b, scaled up to reach
// large numbers too.
func counts(b []byte) []int {
	b = b[:min(len(b), chartSlots)]
	out := make([]int, len(b))
	for i, v := range b {
		out[i] = int(v) * int(v)
	}
	return out
}
