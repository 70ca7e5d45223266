package main

import (
	"context"
	"io"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"tradedeck/config"
)

// Every command that has --live has --staging, and it reaches openVenue.
func TestStagingFlagOnEveryLiveCommand(t *testing.T) {
	d, err := parseDashboardFlags([]string{"--staging"})
	if err != nil || !d.staging || d.live {
		t.Fatalf("dashboard %+v %v", d, err)
	}
	s, err := parseServeFlags([]string{"--staging", "--authorized-keys", "/a"})
	if err != nil || !s.staging {
		t.Fatalf("serve %+v %v", s, err)
	}
	if _, err := parseServeFlags([]string{"--staging"}); err == nil {
		t.Fatal("serve --staging without --authorized-keys: a real account shown to any key")
	}
	var a alertsFlags
	if err := alertsFlagSet(&a).Parse([]string{"--staging"}); err != nil || !a.staging {
		t.Fatalf("alerts %+v %v", a, err)
	}
	fs, v := venueFlagSet("record") // record, export, watch, stats
	fs.SetOutput(io.Discard)
	if err := fs.Parse([]string{"--staging"}); err != nil || !v.staging {
		t.Fatalf("record/export %+v %v", v, err)
	}
}

// --staging talks to the venue's staging addresses (config.DefaultStaging), a
// config's [staging] section overrides them, the banner says STAGING, and
// --live with --staging is refused.
func TestStagingSelectsTheStagingVenue(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Setenv(config.EnvAPIKey, "")
	t.Setenv(config.EnvAPISecret, "")
	t.Setenv(config.EnvApplicationID, "app") // public streams need one; keys do not
	v, err := openVenue(ctx, dashboardFlags{venueFlags: venueFlags{staging: true}}, config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	want := map[string]string{
		"REST": "https://api.staging.woo.org", "history": "https://api-pub.staging.woo.org",
		"ws market": "wss://wss.staging.woo.org", "ws private": "wss://wss.staging.woo.org",
	}
	got := map[string]string{"REST": v.client.Endpoints().BaseURL, "history": v.endpoints.PublicHistoryURL,
		"ws market": v.endpoints.WSMarketURL, "ws private": v.endpoints.WSPrivateURL}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s address %q, want %q", k, got[k], w)
		}
	}
	if v.label != "STAGING" || !v.readOnly {
		t.Errorf("label %q read-only %v (no keys: read-only)", v.label, v.readOnly)
	}
	d, err := v.newDashboard(dashboardFlags{}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
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
	if _, err := openVenue(ctx, dashboardFlags{venueFlags: venueFlags{live: true, staging: true}}, config.Defaults()); err == nil {
		t.Error("--live --staging accepted")
	}
	if _, err := openVenue(ctx, dashboardFlags{venueFlags: venueFlags{staging: true}, paper: true}, config.Defaults()); err == nil {
		t.Error("--staging --paper accepted")
	}
}
