package server

import (
	"context"
	"time"

	"secutil/server/internal/usagechart"
)

// usageChart is the dashboard's bar chart of metered calls per day
// (laid out by usagechart).
type usageChart = usagechart.Chart

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
	return usagechart.Layout(lastMonth, days[:split], thisMonth, days[split:]), nil
}
