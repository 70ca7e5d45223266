package app

import (
	"errors"
	"fmt"
	"os"

	"tradedeck/algo"
	"tradedeck/algo/control"
	"tradedeck/algo/store"
	"tradedeck/config"
	"tradedeck/xdg"
)

// AlgoAccount is where the engine of the account a venue choice names
// keeps its files, found without opening the venue (`tradedeck algo`).
type AlgoAccount struct {
	Label   string // LIVE, STAGING
	Account string // algo.AccountKey: the venue's address and the API key
	Paths   control.Paths
	DB      string // the database file (it may not exist yet)
}

// ErrEmbedded: the embedded simulator lives inside the process that
// runs it: no other process can reach its engine.
var ErrEmbedded = errors.New("the embedded simulated venue lives inside the process that runs it, with its engine: " +
	"use that process's : command line, or run `tradedeck sim --listen 127.0.0.1:PORT`, put its addresses in a config's [live] section " +
	"and give --live --config FILE to both tradedeck desk and tradedeck algo")

// AlgoAccount locates the account's engine files and database.
func (v VenueChoice) AlgoAccount() (AlgoAccount, error) {
	cfg, _, err := config.LoadFlag(v.Config)
	if err != nil {
		return AlgoAccount{}, err
	}
	target, err := v.Target()
	if err != nil {
		return AlgoAccount{}, err
	}
	if target == config.TargetSim {
		return AlgoAccount{}, ErrEmbedded
	}
	ep, creds := cfg.EndpointsOf(target), cfg.CredentialsOf(target, os.Getenv)
	if creds.APIKey == "" {
		return AlgoAccount{}, fmt.Errorf("%s: no API key (%s): the account's engine is the key's", target.Label(), config.EnvAPIKey)
	}
	acct := algo.AccountKey(ep, creds)
	state := xdg.State(nil)
	p, err := control.PathsOf(control.Dir(state), acct)
	if err != nil {
		return AlgoAccount{}, err
	}
	return AlgoAccount{Label: target.Label(), Account: acct, Paths: p, DB: store.Path(state)}, nil
}
