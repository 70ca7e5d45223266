package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const secret = "abc123SECRETxyz"

func write(t *testing.T, src string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(src), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

// Errors about the file name the line and the key, never a value: an
// unquoted secret used to be quoted back by the TOML decoder.
func TestConfigErrorsNameLineAndKeyNeverAValue(t *testing.T) {
	cases := []struct{ src, want string }{
		{"theme = \"dark\"\n[live]\napi_secret = " + secret + "\n", "line 3, key live.api_secret: the value is not valid TOML (text must be quoted"},
		{"[live]\napi_secret = \"" + secret + "\" trailing\n", "line 2, key live"},
		{"[live]\napi_secret = '" + secret + "\n", "line 2, key live.api_secret: not valid TOML"},
		{"[live]\napi_secret = 12345" + "\n", "line 2, key live.api_secret: an int64 where a string is expected"},
		{"fps = \"" + secret + "\"\n", "line 1, key fps: a string where an integer is expected"},
		{"confirm_notional = \"" + secret + "\"\n", "key confirm_notional: not a decimal number"},
		{"watchlist = [\"A\", " + secret + "]\n", "line 1, key watchlist"},
	}
	for _, c := range cases {
		p := write(t, c.src, 0o600)
		_, _, err := Load(p, true)
		if err == nil {
			t.Errorf("%q loaded", c.src)
			continue
		}
		if strings.Contains(err.Error(), secret[:5]) || strings.Contains(err.Error(), "12345") {
			t.Errorf("the error shows the value: %v", err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q lacks %q", c.src, err, c.want)
		}
	}
}

// A file holding the secret that group or others can read is refused,
// as ssh refuses such a private key; without a secret the mode is free.
func TestReadableSecretRefused(t *testing.T) {
	src := "[live]\napi_key = \"k\"\napi_secret = \"" + secret + "\"\n"
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660} {
		p := write(t, src, mode)
		_, _, err := Load(p, true)
		if err == nil {
			t.Fatalf("mode %04o with a secret loaded", mode)
		}
		if !strings.Contains(err.Error(), "chmod 600 "+p) || !strings.Contains(err.Error(), EnvAPISecret) || strings.Contains(err.Error(), secret) {
			t.Fatalf("refusal: %v", err)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		if _, _, err := Load(write(t, src, mode), true); err != nil {
			t.Fatalf("mode %04o: %v", mode, err)
		}
	}
	if _, _, err := Load(write(t, "[live]\napi_key = \"k\"\n", 0o644), true); err != nil {
		t.Fatalf("a readable file without a secret: %v", err)
	}
}

// The venue's table is [live], everywhere: the code reads it, the docs'
// example loads, README names it, and [venue] is refused with a pointer.
func TestLiveTableIsTheOneName(t *testing.T) {
	_, _, err := Load(write(t, "[venue]\nbase_url = \"https://x\"\n", 0o600), true)
	if err == nil || !strings.Contains(err.Error(), "venue.base_url") || !strings.Contains(err.Error(), "[live]") {
		t.Fatalf("[venue]: %v", err)
	}
	doc, err := os.ReadFile("../docs/ui.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```toml\n(.*?)```").FindSubmatch(doc)
	if m == nil || !strings.Contains(string(m[1]), "[live]") {
		t.Fatal("docs/ui.md has no example config with [live]")
	}
	c, _, err := Load(write(t, string(m[1]), 0o600), true)
	if err != nil {
		t.Fatalf("docs/ui.md's example: %v", err)
	}
	if c.Endpoints().BaseURL == "" {
		t.Fatal("example's [live] not read")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(readme), "[venue]") || !strings.Contains(string(readme), "`[live]`") {
		t.Fatal("README must name the [live] table, not [venue]")
	}
}
