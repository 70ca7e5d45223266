package cli

import (
	"fmt"
	"github.com/spf13/pflag"
	"os"
	"strings"
	"time"

	"tradedeck/config"
	"tradedeck/sim"
	"tradedeck/venue"
)

// mirrorFlags adds the paper-trading flags of `tradedeck sim` to fs; the
// returned func reads them after fs.Parse (nil options: no mirror).
func mirrorFlags(fs *pflag.FlagSet) func() (*sim.MirrorOptions, error) {
	on := fs.Bool("mirror", false, "paper trading: follow an upstream venue's public market instead of synthetic participants (docs/paper.md)")
	base := fs.String("upstream", "", "with --mirror: the upstream's REST base URL (default: the [live] section of the config)")
	ws := fs.String("upstream-ws", "", "with --mirror: the upstream's Websocket market URL (default: --upstream with ws:// or wss://)")
	cfgPath := fs.String("config", "", "with --mirror: the config file whose [live] section names the upstream (default: the usual path)")
	latency := fs.Duration("latency", 0, "with --mirror: an order meets the upstream book as it stands this long after it arrives")
	symbols := fs.String("symbols", "", "with --mirror: comma-separated symbols to follow (default: every symbol both venues list)")
	return func() (*sim.MirrorOptions, error) {
		if !*on {
			if *base != "" || *ws != "" || *latency != 0 || *symbols != "" {
				return nil, fmt.Errorf("--upstream, --upstream-ws, --latency and --symbols need --mirror")
			}
			return nil, nil
		}
		if *latency < 0 || *latency > time.Minute {
			return nil, fmt.Errorf("--latency must be between 0 and 1m")
		}
		m := &sim.MirrorOptions{Latency: *latency}
		if *symbols != "" {
			for s := range strings.SplitSeq(*symbols, ",") {
				m.Symbols = append(m.Symbols, strings.ToUpper(strings.TrimSpace(s)))
			}
		}
		if *base != "" {
			m.Upstream = venue.Endpoints{BaseURL: strings.TrimRight(*base, "/"), WSMarketURL: *ws}
			if m.Upstream.WSMarketURL == "" {
				m.Upstream.WSMarketURL = "ws" + strings.TrimPrefix(m.Upstream.BaseURL, "http")
			}
			return m, nil
		}
		cfg, warnings, err := config.LoadFlag(*cfgPath)
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			fmt.Fprintln(os.Stderr, "tradedeck sim: config:", w)
		}
		// only the public addresses and the (public) application id: keys stay unread
		m.Upstream = cfg.Endpoints()
		m.ApplicationID = cfg.Credentials(os.Getenv).ApplicationID
		if *ws != "" {
			m.Upstream.WSMarketURL = *ws
		}
		return m, nil
	}
}
