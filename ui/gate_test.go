package ui

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/internal/testkit"
	"tradedeck/panes/account"
	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/panes/confirm/cmdtest"
	"tradedeck/panes/orderform"
	"tradedeck/panes/panetest"
	"tradedeck/sim"
	"tradedeck/sim/simtest"
	"tradedeck/theme"
	"tradedeck/trade"
	"tradedeck/venue"
)

// live drives the real root model the way the Bubble Tea runtime does:
// every message is followed by a frame (View), commands run in their own
// goroutines and post their messages back, batches concurrently and
// sequences in order. Timers (the clock, cursor blinks) simply arrive
// later. The venue is the simulator on loopback.
type live struct {
	t       *testing.T
	m       *Model
	inst    *sim.Instance
	client  *venue.Client
	clk     *testkit.Clock
	msgs    chan tea.Msg
	notices []string
}

const gateSymbol = "SPOT_ETH_USDT"

func newLive(t *testing.T, w, h int, readOnly bool) *live {
	t.Helper()
	inst := simtest.Start(t, sim.Options{Seed: 4, NoRateLimits: true, Living: sim.LivingOptions{NoMarket: true}})
	client := venue.NewClient(inst.Endpoints, inst.Credentials, venue.WithLimiter(nil))
	th, _ := theme.New("dark", false)
	clk := testkit.NewClock(time.Unix(1_760_000_000, 0))
	why := ""
	if readOnly {
		why = "--read-only"
	}
	m := New(Options{Venue: "SIM", Symbol: gateSymbol, Watchlist: []string{gateSymbol}, Theme: th,
		Keys: panetest.Keys(), Desk: deskOn(t, client, nil), ReadOnly: why, Now: clk.Now})
	l := &live{t: t, m: m, inst: inst, client: client, clk: clk, msgs: make(chan tea.Msg, 256)}
	l.deliver(tea.WindowSizeMsg{Width: w, Height: h})
	return l
}

// deliver is one turn of the runtime: Update, then a frame.
func (l *live) deliver(msg tea.Msg) tea.Cmd {
	if n, ok := msg.(common.NoticeMsg); ok {
		l.notices = append(l.notices, n.Text)
	}
	_, cmd := l.m.Update(msg)
	l.m.View()
	l.start(cmd)
	return cmd
}

// start runs a command in the background; its messages come back on l.msgs.
func (l *live) start(cmd tea.Cmd) {
	if cmd != nil {
		go l.runCmd(cmd)
	}
}

func (l *live) runCmd(cmd tea.Cmd) {
	msg := cmd()
	v := reflect.ValueOf(msg)
	if msg != nil && v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
		_, batch := msg.(tea.BatchMsg)
		for i := 0; i < v.Len(); i++ {
			c, _ := v.Index(i).Interface().(tea.Cmd)
			if c == nil {
				continue
			}
			if batch {
				go l.runCmd(c)
			} else {
				l.runCmd(c) // a sequence: in order
			}
		}
		return
	}
	if msg != nil {
		l.msgs <- msg
	}
}

// until delivers messages until cond holds (the deadline only bounds a hang).
func (l *live) until(what string, cond func() bool) {
	l.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case msg := <-l.msgs:
			if _, quit := msg.(tea.QuitMsg); !quit {
				l.deliver(msg)
			}
		case <-deadline:
			l.t.Fatalf("timed out waiting for %s; screen:\n%s", what, l.screen())
		}
	}
}

func (l *live) screen() string { return ansi.Strip(l.m.Render()) }

// key presses a key and returns what it started, run synchronously (a
// test asserts that a gated key starts nothing but a notice).
func (l *live) key(k string) tea.Cmd {
	_, cmd := l.m.Update(keyMsg(k))
	l.m.View()
	l.start(cmd)
	return cmd
}

func (l *live) keys(ks ...string) {
	for _, k := range ks {
		l.key(k)
	}
}

// typeText types s into whatever has the keys.
func (l *live) typeText(s string) {
	for _, r := range s {
		l.key(string(r))
	}
}

func (l *live) top() common.Dialog {
	if n := len(l.m.dialogs); n > 0 {
		return l.m.dialogs[n-1]
	}
	return nil
}

func topIs[T any](l *live) func() bool {
	return func() bool { _, ok := l.top().(T); return ok }
}

// resize changes the terminal's size.
func (l *live) resize(w, h int) { l.deliver(tea.WindowSizeMsg{Width: w, Height: h}) }

func (l *live) openOrders() int {
	l.t.Helper()
	rows, _, err := l.client.ListOrders(context.Background(), venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		l.t.Fatal(err)
	}
	return len(rows)
}

// refresh loads the book and the account from REST into the root, as
// the feed would.
func (l *live) refresh() {
	l.t.Helper()
	d := &tdesk{t: l.t, client: l.client, c: l.m.Common(), Stack: &cmdtest.Stack{}}
	d.refresh(gateSymbol)
	l.deliver(&feed.Update{Account: l.m.store.Account})
}

// rest places a resting order directly through REST (what the cancels
// cancel).
func (l *live) rest() {
	l.t.Helper()
	ctx := context.Background()
	ob, err := l.client.OrderBook(ctx, gateSymbol, 1)
	if err != nil {
		l.t.Fatal(err)
	}
	p := ob.Bids[0].Price.Mul(decimal.RequireFromString("0.9")).Round(2)
	if _, err := l.client.SendOrder(ctx, venue.OrderRequest{Symbol: gateSymbol, Side: venue.Buy, Type: venue.Limit,
		Price: p, Quantity: decimal.RequireFromString("0.01"), ClientOrderID: 777}); err != nil {
		l.t.Fatal(err)
	}
	l.refresh()
}

func (l *live) accountInfo() venue.AccountInfo {
	l.t.Helper()
	info, err := l.client.AccountInfo(context.Background())
	if err != nil {
		l.t.Fatal(err)
	}
	return info
}

// gatedStartsNothing asserts a key's command does nothing but, at most,
// notify.
func gatedStartsNothing(t *testing.T, k string, cmd tea.Cmd) {
	t.Helper()
	for _, msg := range cmdtest.Run(cmd) {
		if _, ok := msg.(common.NoticeMsg); !ok {
			t.Fatalf("key %q on a screen that does not show its action started %T", k, msg)
		}
	}
}

// stage is keys, then what the screen shows once they acted.
type stage struct {
	keys  []string
	shows func(l *live) bool
}

// A path is one trading or account-changing action, from the dashboard
// to its confirmation (the last stage); state reads the venue.
type path struct {
	name   string
	setup  func(l *live)
	stages []stage
	state  func(l *live) string
}

func chars(s string) []string { return strings.Split(s, "") }

func paths() []path {
	orders := func(l *live) string { return fmt.Sprint(l.openOrders(), " open orders") }
	confirmShown := func(l *live) bool { _, ok := l.top().(*confirm.Model); return ok }
	formValid := func(l *live) bool { f, ok := l.top().(*orderform.Form); return ok && f.Valid() }
	formOpen := func(l *live) bool { return topIs[*orderform.Form](l)() }
	accountLoaded := func(l *live) bool { a, ok := l.top().(*account.Model); return ok && a.Info() != nil }
	promptOpen := func(l *live) bool { return topIs[*account.Prompt](l)() }
	order := func(name string, open ...string) path {
		return path{name: name, state: orders, stages: []stage{
			{open, formOpen}, {chars("0.01"), formValid}, {[]string{"enter"}, confirmShown}}}
	}
	cancel := func(name string, keys ...string) path {
		return path{name: name, setup: (*live).rest, state: orders, stages: []stage{{keys, confirmShown}}}
	}
	acct := func(name string, keys ...string) path {
		return path{name: name, state: func(l *live) string {
			a := l.accountInfo().Application
			return fmt.Sprint(a.AccountMode, " ", a.FuturesLeverage)
		}, stages: []stage{{[]string{"A"}, accountLoaded}, {keys[:1], promptOpen}, {keys[1:], confirmShown}}}
	}
	return []path{
		order("b", "b"),
		order("s", "s"),
		order(":buy", append(chars(":buy"), "enter")...),
		order(":sell", append(chars(":sell"), "enter")...),
		cancel("c", "5", "]", "c"),
		cancel("C", "C"),
		cancel("X", "X"),
		cancel(":cancel all", append(chars(":cancel all"), "enter")...),
		cancel(":cancel oid", append(chars(":cancel cid 777"), "enter")...),
		cancel(":panic", append(chars(":panic"), "enter")...),
		acct("account leverage", "l", "right", "enter"),
		acct("account mode", "m", "left", "enter"),
	}
}

// reach walks a path to its confirmation on a screen that shows it.
func (l *live) reach(p path) {
	l.t.Helper()
	for _, st := range p.stages {
		l.keys(st.keys...)
		l.until(p.name+" after "+strings.Join(st.keys, ""), func() bool { return st.shows(l) })
	}
	l.clk.Advance(time.Second) // past the confirmation's key grace
}

// accept presses y on the confirmation and waits for the venue to change.
func (l *live) accept(p path, before string) {
	l.t.Helper()
	l.key("y")
	deadline := time.Now().Add(20 * time.Second)
	for p.state(l) == before {
		if time.Now().After(deadline) {
			l.t.Fatalf("%s: y did not act; venue still %s; screen:\n%s", p.name, before, l.screen())
		}
		select {
		case msg := <-l.msgs:
			l.deliver(msg)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func setupPath(t *testing.T, p path, w, h int, readOnly bool) (*live, string) {
	l := newLive(t, w, h, readOnly)
	l.refresh()
	if p.setup != nil {
		p.setup(l)
	}
	return l, p.state(l)
}

// No action without its screen (issue 12): every trading and
// account-changing path, in each state of the screen.
func TestNoActionWithoutItsScreen(t *testing.T) {
	for _, p := range append(append(append(paths(), movePaths()...), algoPaths()...), workPaths()...) {
		t.Run(p.name, func(t *testing.T) {
			t.Run("normal", func(t *testing.T) {
				// The smallest screen the dashboard draws: the whole path
				// fits, and y acts.
				l, before := setupPath(t, p, MinWidth, MinHeight, false)
				l.reach(p)
				if !l.m.dialogDrawn() {
					t.Fatalf("confirmation not drawn whole at %dx%d:\n%s", MinWidth, MinHeight, l.screen())
				}
				l.accept(p, before)
			})
			t.Run("too small", func(t *testing.T) {
				l, before := setupPath(t, p, 70, 20, false)
				for _, st := range p.stages {
					for _, k := range append(append([]string{}, st.keys...), "y", "enter") {
						gatedStartsNothing(t, k, l.key(k))
					}
				}
				l.clk.Advance(time.Second)
				gatedStartsNothing(t, "y", l.key("y"))
				if len(l.m.dialogs) != 0 || l.m.cmdActive {
					t.Fatalf("a too-small screen opened %d dialog(s), command line %v", len(l.m.dialogs), l.m.cmdActive)
				}
				if sc := strings.Join(strings.Fields(l.screen()), " "); !strings.Contains(sc, "Keys are ignored until it is larger") {
					t.Fatalf("the too-small screen does not say keys are ignored:\n%s", sc)
				}
				if now := p.state(l); now != before {
					t.Fatalf("venue changed from %s to %s", before, now)
				}
			})
			t.Run("shrunk at the confirmation", func(t *testing.T) {
				l, before := setupPath(t, p, 120, 40, false)
				l.reach(p)
				l.resize(70, 20)
				if len(l.m.dialogs) != 0 {
					t.Fatalf("shrinking left %d dialog(s) open", len(l.m.dialogs))
				}
				for _, k := range []string{"y", "enter"} {
					gatedStartsNothing(t, k, l.key(k))
				}
				l.resize(120, 40)
				gatedStartsNothing(t, "y", l.key("y"))
				if len(l.m.dialogs) != 0 {
					t.Fatalf("a dialog came back: %T", l.top())
				}
				if sc := l.screen(); !strings.Contains(sc, "closed, nothing was sent") {
					t.Fatalf("no notice about the closed dialogs:\n%s", sc)
				}
				if now := p.state(l); now != before {
					t.Fatalf("venue changed from %s to %s", before, now)
				}
			})
			t.Run("covered", func(t *testing.T) {
				// Another dialog over the confirmation: y reaches the one on
				// top, never the confirmation under it. Closed, the
				// confirmation is drawn whole again and y acts.
				l, before := setupPath(t, p, 120, 40, false)
				l.reach(p)
				l.deliver(common.OpenDialogMsg{Dialog: newBoxDialog("cover", 30, 6)})
				gatedStartsNothing(t, "y", l.key("y"))
				if now := p.state(l); now != before {
					t.Fatalf("venue changed from %s to %s", before, now)
				}
				l.deliver(common.CloseDialogMsg{})
				l.accept(p, before)
			})
			t.Run("read-only", func(t *testing.T) {
				l, before := setupPath(t, p, 120, 40, true)
				refused := func() bool { return strings.Contains(strings.Join(l.notices, "|"), "disabled") }
				for _, st := range p.stages {
					if refused() {
						break
					}
					l.keys(st.keys...)
					l.until("the refusal or "+strings.Join(st.keys, ""), func() bool { return refused() || st.shows(l) })
				}
				if !refused() {
					t.Fatalf("read-only did not refuse; notices %q", l.notices)
				}
				l.clk.Advance(time.Second)
				l.keys("y", "enter")
				if _, ok := l.top().(*confirm.Model); ok {
					t.Fatal("read-only opened a confirmation")
				}
				if now := p.state(l); now != before {
					t.Fatalf("venue changed from %s to %s", before, now)
				}
			})
		})
	}
}

// A confirmation cut by the screen (taller than the room below the
// header) takes no key but esc, which sends nothing.
func TestCutConfirmationCannotBeAccepted(t *testing.T) {
	l := newLive(t, MinWidth, MinHeight, false)
	sent := false
	lines := make([]string, 30)
	for i := range lines {
		lines[i] = fmt.Sprintf("fact %d", i)
	}
	l.deliver(common.OpenDialogMsg{Dialog: confirm.New(l.m.Common(), confirm.Options{Title: "Confirm tall",
		Lines: lines, Action: "send", OnConfirm: func() tea.Msg { sent = true; return nil }})})
	l.clk.Advance(time.Second)
	if l.m.dialogDrawn() {
		t.Fatal("a confirmation taller than the screen counts as drawn whole")
	}
	for _, k := range []string{"y", "enter"} {
		cmd := l.key(k)
		gatedStartsNothing(t, k, cmd)
	}
	if sent {
		t.Fatal("a cut confirmation was accepted")
	}
	l.key("esc")
	if len(l.m.dialogs) != 0 || sent {
		t.Fatalf("esc: %d dialogs, sent %v", len(l.m.dialogs), sent)
	}
}

// A dialog opened but not drawn yet (no frame since) takes no key.
func TestUndrawnDialogTakesNoKey(t *testing.T) {
	l := newLive(t, 120, 40, false)
	sent := false
	_, _ = l.m.Update(common.OpenDialogMsg{Dialog: confirm.New(l.m.Common(), confirm.Options{Title: "Confirm",
		Lines: []string{"x"}, Action: "send", OnConfirm: func() tea.Msg { sent = true; return nil }})})
	l.clk.Advance(time.Second)
	_, cmd := l.m.Update(keyMsg("y")) // no View in between
	gatedStartsNothing(t, "y", cmd)
	l.m.View()
	_, cmd = l.m.Update(keyMsg("y"))
	cmdtest.Run(cmd)
	if !sent {
		t.Fatal("a drawn confirmation did not accept y")
	}
}

// The order form opened before the symbol's rules are known asks for
// them; their answer must find the form, whatever order the runtime runs
// the opening's commands in (a batch's may finish in any order: here the
// last first).
func TestFormOpenedBeforeItsRulesArrive(t *testing.T) {
	l := newLive(t, 120, 40, false)
	cmd := l.m.trader.OpenOrderForm(l.m.c, gateSymbol, trade.Buy, decimal.Zero)
	var msgs []tea.Msg
	if batch, ok := cmd().(tea.BatchMsg); ok {
		for i := len(batch) - 1; i >= 0; i-- {
			if batch[i] != nil {
				msgs = append(msgs, batch[i]())
			}
		}
	} else {
		l.start(cmd) // a sequence: the runtime keeps its order
	}
	for _, msg := range msgs {
		// each message and the message its command brings, before the
		// next: the rules' answer reaches the dialogs before the opening
		for msg != nil {
			_, c := l.m.Update(msg)
			l.m.View()
			msg = nil
			if c != nil {
				msg = c()
			}
		}
	}
	l.until("the form with its rule", func() bool {
		f, ok := l.top().(*orderform.Form)
		return ok && !strings.Contains(ansi.Strip(f.View()), "loading the symbol rule")
	})
}
