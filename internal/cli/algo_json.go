package cli

import (
	"strings"
	"time"

	"tradedeck/algo"
	"tradedeck/algo/store"
)

// algoJSON is one algo as `tradedeck algo list --json` prints it: names,
// not the engine's numbers, and prices as exact decimal strings.
type algoJSON struct {
	ID       algo.ID       `json:"id"`
	Kind     string        `json:"kind"` // stop, stop-limit, tp, tp-market, oco, bracket, trail
	Symbol   string        `json:"symbol"`
	Side     string        `json:"side"` // the exits' side: buy or sell
	State    string        `json:"state"`
	Reason   string        `json:"reason,omitempty"`
	Line     string        `json:"line"` // the grammar's text
	Triggers []triggerJSON `json:"triggers,omitempty"`
	Filled   string        `json:"filled"`
	Children []childJSON   `json:"children,omitempty"`
	Fired    string        `json:"fired,omitempty"` // why it fired
	By       string        `json:"by,omitempty"`
	Created  time.Time     `json:"created"`
	Updated  time.Time     `json:"updated"`
	// Engine: "running" (listed by the engine) or "not running" (read
	// from the database: nothing protects these positions).
	Engine string `json:"engine"`
}

type triggerJSON struct {
	Leg         string `json:"leg"`
	Price       string `json:"price"`
	Source      string `json:"source"`
	Market      string `json:"market,omitempty"`
	DistancePct string `json:"distance_pct,omitempty"`
}

type childJSON struct {
	ClientOrderID int64  `json:"client_order_id"`
	OrderID       int64  `json:"order_id,omitempty"`
	Leg           string `json:"leg"`
	Attempt       int    `json:"attempt"`
	Side          string `json:"side"`
	Type          string `json:"type"`
	Price         string `json:"price,omitempty"`
	Quantity      string `json:"quantity"`
	ReduceOnly    bool   `json:"reduce_only"`
	Status        string `json:"status"`
	Executed      string `json:"executed"`
}

func algoJSONOf(a algo.Algo, engine string) algoJSON {
	j := algoJSON{ID: a.ID, Kind: a.Spec.Label(), Symbol: a.Spec.Symbol, Side: strings.ToLower(string(a.Side)), State: a.State.String(),
		Reason: a.Reason, Line: a.Spec.String(), Filled: a.Filled.String(), By: a.By, Created: a.Created, Updated: a.Updated, Engine: engine}
	for _, t := range a.Triggers {
		tj := triggerJSON{Leg: t.Leg.String(), Price: t.Price.String(), Source: t.Source.String()}
		if t.Market.IsPositive() {
			tj.Market, tj.DistancePct = t.Market.String(), t.DistancePct.String()
		}
		j.Triggers = append(j.Triggers, tj)
	}
	for _, c := range a.Children {
		cj := childJSON{ClientOrderID: c.ClientOrderID, OrderID: c.OrderID, Leg: c.Leg.String(), Attempt: c.Attempt,
			Side: strings.ToLower(string(c.Side)), Type: string(c.Type), Quantity: c.Quantity.String(), ReduceOnly: c.ReduceOnly,
			Status: c.Status, Executed: c.Executed.String()}
		if c.Price.IsPositive() {
			cj.Price = c.Price.String()
		}
		j.Children = append(j.Children, cj)
	}
	if a.Fired != nil {
		j.Fired = a.Fired.Why
	}
	return j
}

// algoJSONOfRow is an algo as the database holds it (no engine runs).
func algoJSONOfRow(r store.AlgoRow, children []store.ChildRow) algoJSON {
	j := algoJSON{ID: algo.ID(r.ID), Kind: r.Kind, Symbol: r.Symbol, Side: strings.ToLower(r.Side), State: r.State, Reason: r.Reason,
		Line: r.Line, Filled: r.Filled, By: r.By, Created: r.Created, Updated: r.Updated, Engine: "not running"}
	if spec, err := algo.Parse(r.Line); err == nil {
		j.Kind = spec.Label()
	}
	for _, c := range children {
		j.Children = append(j.Children, childJSON{ClientOrderID: c.CID, OrderID: c.OrderID, Leg: algo.Leg(c.Leg).String(), Attempt: c.Attempt,
			Side: strings.ToLower(c.Side), Type: c.Type, Price: c.Price, Quantity: c.Quantity, ReduceOnly: c.ReduceOnly, Status: c.Status,
			Executed: c.Executed})
	}
	return j
}
