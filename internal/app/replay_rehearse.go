package app

import (
	"context"
	"errors"

	"tradedeck/replay/rehearse"
)

// runRehearsal is `tradedeck replay FILE --rehearse LINE...`: the algos
// run by the desk's engine on the recording, on paper, as fast as the
// engine settles, then the dry-run report. Nothing reaches a venue or
// the alert channels: the paper venue is the simulator's exchange on
// loopback and the engine's database a scratch file.
func runRehearsal(ctx context.Context, rf ReplayOptions) error {
	if rf.Check || rf.Paper {
		return errors.New("replay: --rehearse runs without a screen: --check and --paper (the dashboard's paper account) go without it")
	}
	o := rehearse.Options{Path: rf.Path, Lines: rf.Rehearse, From: rf.From}
	for _, s := range rf.Positions {
		p, err := rehearse.ParsePosition(s)
		if err != nil {
			return err
		}
		o.Positions = append(o.Positions, p)
	}
	rep, err := rehearse.Run(ctx, o)
	if err != nil {
		return err
	}
	if rf.JSON {
		return rep.WriteJSON(rf.Out)
	}
	return rep.WriteText(rf.Out)
}
