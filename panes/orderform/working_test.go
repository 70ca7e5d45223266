package orderform

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/trade"
)

func kindForm(t *testing.T, w, h int) *Form {
	t.Helper()
	f := formWith(t, Options{Side: trade.Buy, Kinds: true}, w, h)
	f.focusRow(rowKind)
	return f
}

// Each working kind takes side, quantity (and a scale's first price)
// and continues on the ':' line with them typed; incomplete, enter
// does nothing but say what is missing.
func TestWorkingKindsContinueOnTheCommandLine(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		want string
	}{
		{KindChase, "chase SPOT_BTC_USDT buy 0.01 "},
		{KindScale, "scale SPOT_BTC_USDT buy 0.01 from 97000.00 to "},
		{KindTWAP, "twap SPOT_BTC_USDT buy 0.01 over "},
	} {
		f := kindForm(t, 80, 22)
		for f.kind != tc.kind {
			press(f, "right")
		}
		if msgs := press(f, "enter"); len(msgs) != 0 {
			t.Fatalf("%s: enter without a quantity did something: %v", tc.kind, msgs)
		}
		if v := ansi.Strip(f.View()); !strings.Contains(v, "quantity is needed") || !strings.Contains(v, "New "+tc.kind.String()) {
			t.Fatalf("%s: the form does not say what is missing:\n%s", tc.kind, v)
		}
		f.focusRow(rowQty)
		press(f, "0.01")
		v := ansi.Strip(f.View())
		if !strings.Contains(v, ":"+strings.TrimSpace(tc.want)) || !strings.Contains(v, "enter continue on the : line") {
			t.Fatalf("%s: the line to continue on is not shown:\n%s", tc.kind, v)
		}
		if n := strings.Count(v, "\n") + 1; n > 20 {
			t.Fatalf("%s: the form is %d rows, too tall for 80x24", tc.kind, n)
		}
		msg, ok := cmdtest.Find[CommandMsg](press(f, "enter"))
		if !ok || msg.Line != tc.want {
			t.Fatalf("%s: enter gave %+v, want the line %q", tc.kind, msg, tc.want)
		}
	}
}

// A chase and a TWAP have no price row: [ and ] say so instead of
// setting a price nobody sees.
func TestWorkingKindsBestPriceSaysWhere(t *testing.T) {
	f := kindForm(t, 120, 40)
	for f.kind != KindChase {
		press(f, "right")
	}
	msgs := press(f, "[")
	n, ok := cmdtest.Find[common.NoticeMsg](msgs)
	if !ok || !strings.Contains(n.Text, "on the : line") {
		t.Fatalf("[ on a chase: %v", msgs)
	}
}
