package app

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/config"
	"tradedeck/panes/common"
)

func TestLiveWithoutKeysIsReadOnly(t *testing.T) {
	cfg := config.Defaults()
	cfg.Live.BaseURL = "http://127.0.0.1:1" // never contacted: the feed is not run
	t.Setenv(config.EnvAPIKey, "")
	t.Setenv(config.EnvAPISecret, "")
	t.Setenv(config.EnvApplicationID, "app") // public streams need one; keys do not
	d, err := StartDashboard(context.Background(), Options{VenueChoice: VenueChoice{Live: true}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.model.ReadOnly() {
		t.Fatal("live without keys must be read-only")
	}
	d.model.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	s := ansi.Strip(d.model.Render())
	if !strings.HasPrefix(s, " LIVE  READ-ONLY") {
		t.Fatalf("header: %q", strings.SplitN(s, "\n", 2)[0])
	}
	if strings.Contains(s, "b buy") {
		t.Fatal("trading keys shown in read-only mode")
	}
}

func TestLiveKeysFromEnvNeverShown(t *testing.T) {
	cfg := config.Defaults()
	cfg.Live.BaseURL = "http://127.0.0.1:1"
	t.Setenv(config.EnvAPIKey, "key-123")
	t.Setenv(config.EnvAPISecret, "very-secret-value")
	t.Setenv(config.EnvApplicationID, "0123456789abcdef")
	d, err := StartDashboard(context.Background(), Options{VenueChoice: VenueChoice{Live: true}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.model.ReadOnly() {
		t.Fatal("keys given: trading allowed")
	}
	d.model.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	s := d.model.Render()
	if strings.Contains(s, "very-secret-value") || strings.Contains(s, "key-123") {
		t.Fatal("a key is on screen")
	}
	if !strings.Contains(ansi.Strip(s), "acct 01234567…") {
		t.Fatal("account label missing")
	}
}

// A [keys] binding that clashes with another is refused at start, naming
// both actions (issue 20: buy = ["q"] showed "q buy" but q quit).
func TestClashingKeysRefusedAtStart(t *testing.T) {
	for _, c := range []struct {
		over map[string][]string
		want string
	}{
		{map[string][]string{"buy": {"q"}}, `"q" is bound to both quit and buy`},
		{map[string][]string{"sell": {"b"}}, `"b" is bound to both buy and sell`},
		{map[string][]string{"quit": {"ctrl+q"}, "panic_cancel": {"ctrl+c"}}, `"ctrl+c" always quits; it cannot be panic_cancel`},
		{map[string][]string{"up": {"X"}}, `"X" is bound to both panic_cancel and up (panic_cancel takes it first)`},
	} {
		if err := common.DefaultKeyMap().Rebind(c.over); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.over, err, c.want)
		}
	}
	if err := common.DefaultKeyMap().Clash(); err != nil {
		t.Fatalf("the default keys clash: %v", err)
	}
	// The dashboard itself refuses to start with such a config.
	cfg := config.Defaults()
	cfg.Keys = map[string][]string{"buy": {"q"}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := StartDashboard(ctx, Options{VenueChoice: VenueChoice{Seed: 1}}, cfg)
	if err == nil {
		d.Close()
		t.Fatal("the dashboard started with buy = [\"q\"]")
	}
	if !strings.Contains(err.Error(), `"q" is bound to both quit and buy`) {
		t.Fatalf("error %v", err)
	}
}
