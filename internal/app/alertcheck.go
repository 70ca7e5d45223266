package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"tradedeck/alerts"
	"tradedeck/algo"
	"tradedeck/algo/control"
	"tradedeck/algo/store"
)

// CheckAlertAction checks the action of `tradedeck alerts add ... then
// ...` against the account the venue choice names: its running engine,
// else its database (an alert may be added while no engine runs; it acts
// once one runs the alerts file). The embedded simulated venue's algos
// live inside the process that runs it: refused, with where to add it.
func (v VenueChoice) CheckAlertAction(ctx context.Context, act alerts.Action) error {
	acct, err := v.AlgoAccount()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := control.Find(ctx, acct.Paths, "tradedeck alerts add")
	if err == nil {
		defer c.Close()
		list, err := c.SnapshotErr()
		if err != nil {
			return err
		}
		return checkIn(list, act)
	}
	if !errors.Is(err, control.ErrNotRunning) {
		return err
	}
	list, err := algosFromDB(acct)
	if err != nil {
		return err
	}
	return checkIn(list, act)
}

// checkIn is the add-time check of act against the account's algos.
func checkIn(list []algo.Algo, act alerts.Action) error {
	a, err := findAlgo(list, act)
	if err != nil {
		return err
	}
	return vetAction(act, a)
}

// findAlgo is the algo act names, of the kind it names.
func findAlgo(list []algo.Algo, act alerts.Action) (algo.Algo, error) {
	for _, a := range list {
		if int64(a.ID) != act.Algo {
			continue
		}
		if act.Kind != "" && act.Kind != a.Spec.Kind.String() {
			return a, fmt.Errorf("algo #%d is a %s, not a %s", a.ID, a.Spec.Label(), act.Kind)
		}
		return a, nil
	}
	return algo.Algo{}, fmt.Errorf("no algo #%d in this account's engine (the Algos tab, tradedeck algo list)", act.Algo)
}

// algosFromDB reads the account's algos from its database, as much of
// them as an action's check needs (kind, spec, state): no engine runs.
func algosFromDB(acct AlgoAccount) ([]algo.Algo, error) {
	if _, err := os.Stat(acct.DB); errors.Is(err, os.ErrNotExist) {
		return nil, nil // no database: no algo
	}
	st, err := store.Open(acct.DB)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	rows, err := st.Algos(acct.Account, false)
	if err != nil {
		return nil, err
	}
	out := make([]algo.Algo, 0, len(rows))
	for _, r := range rows {
		spec, err := algo.Parse(r.Line)
		if err != nil {
			continue // a line this version cannot read is no algo it can act on
		}
		out = append(out, algo.Algo{ID: algo.ID(r.ID), Spec: spec, State: stateNamed(r.State), Reason: r.Reason})
	}
	return out, nil
}

// stateNamed is the state the database names (0: unknown).
func stateNamed(name string) algo.State {
	for s := algo.State(1); s < 64; s++ {
		if s.String() == name {
			return s
		}
	}
	return 0
}
