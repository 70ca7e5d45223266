package app

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/config"
)

// --staging talks to the venue's staging addresses (config.DefaultStaging), a
// config's [staging] section overrides them, the banner says STAGING, and
// --live with --staging is refused.
func TestStagingSelectsTheStagingVenue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Setenv(config.EnvAPIKey, "")
	t.Setenv(config.EnvAPISecret, "")
	t.Setenv(config.EnvApplicationID, "app") // public streams need one; keys do not
	v, err := OpenVenue(ctx, Options{VenueChoice: VenueChoice{Staging: true}}, config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	want := map[string]string{
		"REST": "https://api.staging.woo.org", "history": "https://api-pub.staging.woo.org",
		"ws market": "wss://wss.staging.woo.org", "ws private": "wss://wss.staging.woo.org",
	}
	got := map[string]string{"REST": v.Client.Endpoints().BaseURL, "history": v.Endpoints.PublicHistoryURL,
		"ws market": v.Endpoints.WSMarketURL, "ws private": v.Endpoints.WSPrivateURL}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s address %q, want %q", k, got[k], w)
		}
	}
	if v.Label != "STAGING" || !v.readOnly {
		t.Errorf("label %q read-only %v (no keys: read-only)", v.Label, v.readOnly)
	}
	d, err := v.newDashboard(Options{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.model.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	if top := ansi.Strip(strings.SplitN(d.model.Render(), "\n", 2)[0]); !strings.Contains(top, " STAGING ") || strings.Contains(top, "LIVE") {
		t.Errorf("banner %q", top)
	}

	cfg := config.Defaults()
	cfg.Staging.BaseURL = "https://staging.example/"
	if e := cfg.EndpointsOf(config.TargetStaging); e.BaseURL != "https://staging.example" || e.WSMarketURL != "wss://wss.staging.woo.org" {
		t.Errorf("config override %+v", e)
	}
	if e := cfg.Endpoints(); e.BaseURL != "https://api.woo.org" {
		t.Errorf("--live changed by [staging]: %+v", e)
	}
	if _, err := OpenVenue(ctx, Options{VenueChoice: VenueChoice{Live: true, Staging: true}}, config.Defaults()); err == nil {
		t.Error("--live --staging accepted")
	}
	if _, err := OpenVenue(ctx, Options{VenueChoice: VenueChoice{Staging: true}, Paper: true}, config.Defaults()); err == nil {
		t.Error("--staging --paper accepted")
	}
}
