package bintest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"tradedeck/config"
)

// KeysEnv is the environment (NAME=value) that gives the binary the demo key.
func (b Banner) KeysEnv() []string {
	return []string{config.EnvAPIKey + "=" + b.APIKey, config.EnvAPISecret + "=" + b.APISecret, config.EnvApplicationID + "=" + b.ApplicationID}
}

// LiveConfig writes dir/config.toml: the settings in top, then the venue
// as the [live] one; it returns the file's path.
func (b Banner) LiveConfig(t testing.TB, dir, top string) string {
	t.Helper()
	e := b.Endpoints
	doc := top + fmt.Sprintf("[live]\nbase_url = %q\npublic_history_url = %q\nws_market_url = %q\nws_private_url = %q\nstats_url = %q\n",
		e.BaseURL, e.PublicHistoryURL, e.WSMarketURL, e.WSPrivateURL, e.StatsURL)
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
