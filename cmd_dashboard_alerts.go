package main

import (
	"context"
	"sync/atomic"

	"tradedeck/alerts"
	"tradedeck/config"
	"tradedeck/feed"
	"tradedeck/ui"
)

// dashAlerts is the alert engine of one dashboard: it observes the
// dashboard's feed at full rate and hands what fired to the screen.
type dashAlerts struct {
	engine  *alerts.Engine
	deliver *alerts.Deliverer
	feed    atomic.Pointer[feed.Feed] // set once the feed exists
}

// newDashAlerts opens the alerts file at path (the local user's, or an SSH
// key's in serve) with the channels configured for the terminal getenv
// describes.
func newDashAlerts(cfg config.Alerts, path string, getenv func(string) string) (*dashAlerts, error) {
	da := &dashAlerts{deliver: alerts.NewDeliverer(alertChannels(cfg, getenv))}
	e, err := alerts.NewEngine(alerts.Options{Store: alerts.NewStore(path), Cooldown: cfg.CooldownDuration(),
		OnFire: da.deliver.Deliver, OnSymbols: da.track, OnError: da.deliver.Report})
	if err != nil {
		return nil, err
	}
	da.engine = e
	return da, nil
}

// attach makes f the observed feed and tracks the alerts' symbols on it.
func (da *dashAlerts) attach(f *feed.Feed) {
	da.feed.Store(f)
	f.Track(da.engine.Symbols())
}

func (da *dashAlerts) track(symbols []string) {
	if f := da.feed.Load(); f != nil {
		f.Track(symbols)
	}
}

func (da *dashAlerts) desk() *ui.AlertDesk {
	return &ui.AlertDesk{Engine: da.engine, Notes: da.deliver.Notes()}
}

// run runs the hook worker and the engine's clock and saving until ctx ends.
func (da *dashAlerts) run(ctx context.Context) {
	go da.deliver.Run(ctx)
	go da.engine.Run(ctx)
}
