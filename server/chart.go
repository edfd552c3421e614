package server

import (
	"context"
	"fmt"
	"time"
)

// usageChart is the dashboard's bar chart of metered calls per day, this
// month beside the last, drawn on the server as SVG: no script, and the
// stylesheet colours it for light and dark.
type usageChart struct {
	ThisMonth, LastMonth string // "November 2026"
	ThisTotal, LastTotal int
	Bars                 []chartBar
	Grid                 []chartLine // horizontal lines, labelled with their count
	Days                 []chartMark // day numbers under the axis
}

// chartBar is one day's bar; Class is "this" or "last" (month).
type chartBar struct {
	X, Y, W, H   float64
	Class, Title string
}

type chartMark struct {
	X, Y  float64
	Label string
}

// chartLine is a horizontal line at Y from X1 to X2, its label at Mark.
type chartLine struct {
	Y, X1, X2 float64
	Mark      chartMark
}

// The chart's geometry, in the SVG's own units (templates/dashboard.html
// uses the same view box).
const (
	chartWidth, chartHeight = 640.0, 200.0
	chartLeft, chartRight   = 40.0, 8.0
	chartTop, chartBottom   = 12.0, 24.0
	chartSlots              = 31 // days of the longest month
)

// usageChart reads the account's calls per day from the first of last
// month to now and lays them out.
func (s *Server) usageChart(ctx context.Context, accountID int64, now time.Time) (usageChart, error) {
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	lastMonth := thisMonth.AddDate(0, -1, 0)
	days, err := s.Store.UsageByDay(ctx, accountID, lastMonth, now)
	if err != nil {
		return usageChart{}, err
	}
	split := int(thisMonth.Sub(lastMonth).Hours() / 24)
	return layoutChart(lastMonth, days[:split], thisMonth, days[split:]), nil
}

// layoutChart places a bar per day of each month, last month's on the left
// of each day's slot, on a scale whose top is a round number.
func layoutChart(lastMonth time.Time, last []int, thisMonth time.Time, this []int) usageChart {
	c := usageChart{ThisMonth: thisMonth.Format("January 2006"), LastMonth: lastMonth.Format("January 2006")}
	highest := 0
	for _, n := range last {
		c.LastTotal += n
		highest = max(highest, n)
	}
	for _, n := range this {
		c.ThisTotal += n
		highest = max(highest, n)
	}
	step := roundStep((highest + 3) / 4)
	top := 4 * step
	plotWidth, plotHeight := chartWidth-chartLeft-chartRight, chartHeight-chartTop-chartBottom
	slot := plotWidth / chartSlots
	y := func(n int) float64 { return chartTop + plotHeight*(1-float64(n)/float64(top)) }
	for i := 0; i <= 4; i++ {
		at := y(i * step)
		c.Grid = append(c.Grid, chartLine{Y: at, X1: chartLeft, X2: chartWidth - chartRight,
			Mark: chartMark{X: chartLeft - 6, Y: at + 4, Label: fmt.Sprint(i * step)}})
	}
	for _, day := range []int{1, 5, 10, 15, 20, 25, 30} {
		c.Days = append(c.Days, chartMark{X: chartLeft + slot*(float64(day)-0.5), Y: chartHeight - 6, Label: fmt.Sprint(day)})
	}
	bars := func(month time.Time, counts []int, class string, offset float64) {
		for i, n := range counts {
			c.Bars = append(c.Bars, chartBar{
				X: chartLeft + slot*(float64(i)+offset), Y: y(n), W: slot * 0.38, H: plotHeight - (y(n) - chartTop),
				Class: class, Title: fmt.Sprintf("%s: %d calls", month.AddDate(0, 0, i).Format("2 Jan"), n),
			})
		}
	}
	bars(lastMonth, last, "last", 0.1)
	bars(thisMonth, this, "this", 0.52)
	return c
}

// roundStep is the smallest of 1, 2, 5, 10, 20, 50… at least n.
func roundStep(n int) int {
	for scale := 1; ; scale *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*scale >= n {
				return m * scale
			}
		}
	}
}
