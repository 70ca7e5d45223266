package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"tradedeck/alerts"
	"tradedeck/algo"
)

// delivered reports the engine events that reach the alert channels
// (notice, bell, OSC 9/777, hook): an algo triggered, partially done,
// retried, failed, needs a decision, or an OCO's excess closed. Armed,
// cancelled and done are shown where the algos are listed, not rung.
func delivered(k algo.EventKind) bool {
	return k.Loud() || k == algo.EventPartial
}

// algoFired is an engine event as an alert firing: the hook gets
// TRADEDECK_ALERT_KIND=algo, TRADEDECK_ALERT_VALUE=the event (triggered,
// failed, ...), the symbol and the line.
func algoFired(ev algo.Event) alerts.Fired {
	return alerts.Fired{Alert: int(ev.Algo), Symbol: ev.Symbol, Kind: alerts.KindAlgo, Value: ev.Kind.String(),
		Message: "algo " + ev.Text, Time: ev.Time}
}

// deliverAlgoEvents hands the engine's loud events to deliver
// (alerts.Deliverer's Deliver, or Show for one of many screens) until
// ctx ends.
func deliverAlgoEvents(ctx context.Context, src AlgoSource, deliver func(alerts.Fired)) {
	events, stop := src.Subscribe(256)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if delivered(ev.Kind) {
				deliver(algoFired(ev))
			}
		}
	}
}

// AlgoEventJSON is one engine event as `tradedeck desk --json` prints it.
type AlgoEventJSON struct {
	Time   time.Time   `json:"time"`
	Event  string      `json:"event"` // armed, triggered, partial, retried, done, failed, needs decision, ...
	Algo   algo.ID     `json:"algo,omitempty"`
	Symbol string      `json:"symbol,omitempty"`
	Text   string      `json:"text"`
	Firing *FiringJSON `json:"firing,omitempty"`
}

// FiringJSON is why an algo fired: the trigger's provenance.
type FiringJSON struct {
	Leg       string    `json:"leg"`
	Level     string    `json:"level"`
	Price     string    `json:"price"`
	Source    string    `json:"source"`
	VenueTime time.Time `json:"venue_time"`
	AgeMS     int64     `json:"age_ms"`
	Why       string    `json:"why"`
}

// algoEventJSON is ev in the printed JSON form.
func algoEventJSON(ev algo.Event) AlgoEventJSON {
	j := AlgoEventJSON{Time: ev.Time, Event: ev.Kind.String(), Algo: ev.Algo, Symbol: ev.Symbol, Text: ev.Text}
	if f := ev.Firing; f != nil {
		j.Firing = &FiringJSON{Leg: f.Leg.String(), Level: f.Level.String(), Price: f.Price.String(), Source: f.Source.String(),
			VenueTime: f.VenueTime, AgeMS: f.Age.Milliseconds(), Why: f.Why}
	}
	return j
}

// printAlgoEvent writes one event as a line (or a JSON object).
func printAlgoEvent(w io.Writer, ev algo.Event, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(algoEventJSON(ev))
	}
	_, err := fmt.Fprintf(w, "%s algo %s %s\n", ev.Time.Local().Format("2006-01-02 15:04:05"), ev.Kind, ev.Text)
	return err
}
