package cli

import (
	"context"

	"github.com/spf13/cobra"

	"tradedeck/internal/app"
	"tradedeck/serve"
)

// Serve is `tradedeck serve`: the dashboard over SSH.
func Serve(env Env) *cobra.Command { return serveCommand(env, app.RunServer) }

// serveCommand is Serve running run (tests read the options).
func serveCommand(env Env, run func(context.Context, app.ServerOptions) error) *cobra.Command {
	o := app.ServerOptions{Keys: env.Keys}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "the dashboard over SSH, a session for every viewer (read-only unless --trade)",
		Example: `  tradedeck serve --listen 127.0.0.1:2222     # then: ssh -p 2222 localhost
  tradedeck serve --live --trade --authorized-keys keys`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Check(); err != nil {
				return err
			}
			return run(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Listen, "listen", serve.DefaultListen, "address to listen on (loopback by default; another address needs --authorized-keys)")
	fs.StringVar(&o.HostKey, "host-key", "", "host key file, generated on first start (default "+serve.DefaultHostKeyPath(nil)+")")
	fs.StringVar(&o.AuthorizedKeys, "authorized-keys", "", "public keys allowed in, each a viewer unless its line starts with tradedeck-role=trader (required with --trade and --live; else default ~/.ssh/authorized_keys when it exists, and without one any key as a viewer, on loopback only)")
	venueFlags(fs, &o.VenueChoice, "show")
	paperFlags(fs, &o.Paper, &o.PaperState)
	fs.BoolVar(&o.Trade, "trade", false, "let sessions of keys with tradedeck-role=trader trade (RISK: anyone holding such a key can send orders)")
	fs.IntVar(&o.MaxSessions, "max-sessions", 16, "most sessions at once (all share one market and one private venue stream); 0: no cap")
	fs.DurationVar(&o.Pace, "pace", app.DefaultPace, "an SSH session takes in market and account updates, and redraws its book and trades tape, at most once per this (0: at once); a client may ask for its own with TRADEDECK_PACE (ssh -o SetEnv)")
	return cmd
}
