// Package usagechart lays out the dashboard's bar chart of metered items
// per day, this month beside the last, for the page to draw as SVG on the
// server: no script, and the stylesheet colours it for light and dark.
package usagechart

import (
	"fmt"
	"time"

	"secutil/tools/plural"
)

// Chart is a laid-out chart, ready for the template to draw.
type Chart struct {
	ThisMonth, LastMonth string // "November 2026"
	ThisTotal, LastTotal int
	Bars                 []Bar
	Grid                 []Line // horizontal lines, labelled with their count
	Days                 []Mark // day numbers under the axis
	// Today marks today's slot (the last of this month's): a phone, which
	// shows half the chart, scrolls to it.
	Today Rule
}

// Rule is a vertical line at X from Y1 down to Y2.
type Rule struct {
	X, Y1, Y2 float64
	Title     string
}

// Bar is one day's bar; Class is "this" or "last" (month).
type Bar struct {
	X, Y, W, H   float64
	Class, Title string
}

// Mark is a label at X, Y.
type Mark struct {
	X, Y  float64
	Label string
}

// Line is a horizontal line at Y from X1 to X2, its label at Mark.
type Line struct {
	Y, X1, X2 float64
	Mark      Mark
}

// The chart's geometry, in the SVG's own units (templates/dashboard.html
// uses the same view box).
const (
	chartWidth, chartHeight = 640.0, 200.0
	chartLeft, chartRight   = 40.0, 8.0
	chartTop, chartBottom   = 12.0, 24.0
	chartSlots              = 31 // days of the longest month
)

// Layout places a bar per day of each month, last month's on the left
// of each day's slot, on a scale whose top is a round number.
func Layout(lastMonth time.Time, last []int, thisMonth time.Time, this []int) Chart {
	c := Chart{ThisMonth: thisMonth.Format("January 2006"), LastMonth: lastMonth.Format("January 2006")}
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
		c.Grid = append(c.Grid, Line{Y: at, X1: chartLeft, X2: chartWidth - chartRight,
			Mark: Mark{X: chartLeft - 6, Y: at + 4, Label: fmt.Sprint(i * step)}})
	}
	for _, day := range []int{1, 5, 10, 15, 20, 25, 30} {
		c.Days = append(c.Days, Mark{X: chartLeft + slot*(float64(day)-0.5), Y: chartHeight - 6, Label: fmt.Sprint(day)})
	}
	bars := func(month time.Time, counts []int, class string, offset float64) {
		for i, n := range counts {
			c.Bars = append(c.Bars, Bar{
				X: chartLeft + slot*(float64(i)+offset), Y: y(n), W: slot * 0.38, H: plotHeight - (y(n) - chartTop),
				Class: class, Title: month.AddDate(0, 0, i).Format("2 Jan") + ": " + plural.Count(n, "item", "items"),
			})
		}
	}
	bars(lastMonth, last, "last", 0.1)
	bars(thisMonth, this, "this", 0.52)
	today := max(len(this)-1, 0)
	c.Today = Rule{X: chartLeft + slot*(float64(today)+0.5), Y1: chartTop, Y2: chartTop + plotHeight,
		Title: "Today, " + thisMonth.AddDate(0, 0, today).Format("2 Jan")}
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
