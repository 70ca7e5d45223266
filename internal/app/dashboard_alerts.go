package app

import (
	"context"

	"tradedeck/alerts"
	"tradedeck/ui"
)

// dashAlerts is the alert engine of one dashboard: a member of the venue
// feed's alerts fanout (so it sees the shared feed at full rate), handing
// what fired to its screen.
type dashAlerts struct {
	engine  *alerts.Engine
	deliver *alerts.Deliverer
	member  *alerts.Member
	acts    *alerts.Acts // the account's side of what fired; nil: alerts here cannot act
	actor   *alertActor
}

// newDashAlerts opens the alerts file at path (the local user's, or an SSH
// key's in serve) with the channels configured for the terminal getenv
// describes, on the venue's feed and clock. A replay's alerts are a
// scratch list in memory, shown as notices only. by names who adds
// alerts here (serve: the SSH key's fingerprint; "": the local user).
func newDashAlerts(v *Venue, path, by string, getenv func(string) string) (*dashAlerts, error) {
	cfg := v.cfg.Alerts
	ch := alertChannels(cfg, getenv)
	store := alerts.NewStore(path)
	if v.scratchAlerts {
		ch = alerts.Channels{Notice: true}
		store = nil
	}
	da := &dashAlerts{deliver: alerts.NewDeliverer(ch), member: v.alerts.Join(), actor: newAlertActor(v)}
	o := alerts.Options{Store: store, Now: v.clock, Cooldown: cfg.CooldownDuration(), By: by,
		OnFire: da.deliver.Deliver, OnSymbols: da.member.Track, OnError: da.deliver.Report}
	da.acts = da.actor.wire(&o, da.deliver)
	e, err := alerts.NewEngine(o)
	if err != nil {
		da.member.Leave()
		return nil, err
	}
	da.engine = e
	da.member.Attach(e)
	return da, nil
}

func (da *dashAlerts) desk() *ui.AlertDesk {
	return &ui.AlertDesk{Engine: da.engine, Notes: da.deliver.Notes()}
}

// run runs the hook worker and the engine's clock and saving until ctx
// ends, and returns once the last firings are saved.
func (da *dashAlerts) run(ctx context.Context) {
	go da.deliver.Run(ctx)
	if da.acts != nil {
		go da.acts.Run(ctx)
	}
	da.engine.Run(ctx)
}

// leave stops the engine seeing the feed (the session ended).
func (da *dashAlerts) leave() {
	da.member.Leave()
	da.actor.close()
}

// deliverAll is Deliver on every channel (nil without alerts).
func (da *dashAlerts) deliverAll(f alerts.Fired) {
	if da != nil {
		da.deliver.Deliver(f)
	}
}
