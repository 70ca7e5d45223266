package common

import (
	"strings"
	"testing"
)

// The close-position key is a root binding: free by default, and a
// rebinding onto another root key or a pane's key is refused at start.
func TestClosePositionKeyClash(t *testing.T) {
	if err := DefaultKeyMap().Clash(); err != nil {
		t.Fatalf("default keys clash: %v", err)
	}
	for _, c := range []struct {
		over map[string][]string
		want string
	}{
		{map[string][]string{"close_position": {"X"}}, `"X" is bound to both panic_cancel and close_position`},
		{map[string][]string{"close_position": {"enter"}}, `"enter" is bound to both close_position and select`},
	} {
		if err := DefaultKeyMap().Rebind(c.over); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.over, err, c.want)
		}
	}
	k := DefaultKeyMap()
	k.SetTradingEnabled(false)
	if k.ClosePosition.Enabled() {
		t.Fatal("read-only leaves the close-position key enabled")
	}
}
