package e2e

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The key walk: every screen's footer or hint line is read off the real
// screen, each hint is parsed into a label ("z zoom", "esc close") and
// each label must have a check in keyChecks that presses the key and sees
// it do what the label says. A label with no check fails the walk, so a
// new key cannot appear on screen untested. Keys that trade only open
// their form or confirmation here and are backed out with esc: the walk
// never confirms an order.

// walker drives one tradedeck in tmux through its screens.
type walker struct {
	*tmux
	w, h int
	seen map[string]int // label -> how many screens showed it
}

// screenDef is one screen of the walk: how to reach it from the grid,
// how to tell it is up, and where its key hints are.
type screenDef struct {
	name    string
	prepare func(k *walker) // once, before the screen is first opened
	open    func(k *walker)
	isUp    func(sc string) bool
	hints   func(sc string) []string // the labels it shows
}

// check presses the key a label names on screen d (already open) and
// asserts its effect. It may leave any state behind: the walk reopens d.
type check func(k *walker, d *screenDef, label string)

var hintSplit = regexp.MustCompile(` {2,}`)

// footerLabels are the hints of the bottom line: "key desc" pairs apart
// by two spaces or more.
func footerLabels(sc string) []string {
	lines := strings.Split(strings.TrimRight(sc, "\n"), "\n")
	var out []string
	for _, h := range hintSplit.Split(strings.TrimSpace(lines[len(lines)-1]), -1) {
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}

// boxHints are the " · " separated hints of a dialog: from the line
// holding first down to the box's bottom border, inside that box only.
func boxHints(first string) func(sc string) []string {
	return func(sc string) []string {
		lines := strings.Split(sc, "\n")
		for i, l := range lines {
			at := strings.Index(l, first)
			if at < 0 {
				continue
			}
			r := []rune(l)
			col := len([]rune(l[:at]))
			left := col - 1
			for left > 0 && r[left] != '│' {
				left--
			}
			right := col
			for right < len(r) && r[right] != '│' {
				right++
			}
			var text []string
			for _, l2 := range lines[i:] {
				r2 := []rune(l2)
				if right > len(r2) || r2[left] != '│' {
					break
				}
				text = append(text, strings.TrimSpace(string(r2[left+1:right])))
			}
			var out []string
			for _, h := range strings.Split(strings.Join(text, " · "), " · ") {
				if h = strings.TrimSpace(h); h != "" {
					out = append(out, h)
				}
			}
			return out
		}
		return nil
	}
}

func lastLine(sc string) string {
	lines := strings.Split(strings.TrimRight(sc, "\n"), "\n")
	return lines[len(lines)-1]
}

// dialogMarks are what every dialog, page and confirmation shows.
var dialogMarks = []string{"esc back", "esc close", "esc to close", "esc cancel", "[y]", "n/esc]"}

// gridUp: no dialog, no page, the grid's own footer: "? help" first, or
// last when the keys do not all fit and the pane's come first (80 columns).
func gridUp(sc string) bool {
	foot := strings.TrimSpace(lastLine(sc))
	if !strings.HasPrefix(foot, "? help") && !strings.HasSuffix(foot, "? help") || !strings.Contains(strings.SplitN(sc, "\n", 2)[0], " PERP_BTC_USDT ") {
		return false
	}
	for _, d := range dialogMarks {
		if strings.Contains(sc, d) {
			return false
		}
	}
	return true
}

// home backs out of whatever is open to the plain grid.
func (k *walker) home() {
	k.t.Helper()
	for i := 0; i < 4 && !gridUp(k.screen()); i++ {
		k.keys("Escape")
		k.poll(2*time.Second, gridUp)
	}
	k.waitFor("the grid", gridUp)
	if zoomed(k.screen()) {
		k.keys("z")
	}
	k.waitFor("the unzoomed grid", func(sc string) bool { return gridUp(sc) && !zoomed(sc) })
}

// focused names the focused pane by the hints only it shows.
func focused(sc string) string {
	f := " " + lastLine(sc) + " "
	switch {
	case strings.Contains(f, " group more "):
		return "book"
	case strings.Contains(f, " longer candles "), strings.Contains(f, " candles/depth/heat map "):
		return "chart"
	case strings.Contains(f, " prev tab "):
		return "account"
	case strings.Contains(f, " enter select "):
		return "watchlist"
	case strings.Contains(f, " ↑/k up "):
		return "trades"
	}
	return ""
}

var paneDigit = map[string]string{"book": "1", "chart": "2", "trades": "3", "watchlist": "4", "account": "5"}

func (k *walker) focus(pane string) {
	k.t.Helper()
	k.home()
	k.keys(paneDigit[pane])
	k.waitFor(pane+" focused", func(sc string) bool { return gridUp(sc) && focused(sc) == pane })
}

var tabNames = []string{"Positions", "Open orders", "History", "Fills", "Balances", "PnL", "Algos", "Swap stats"}

// boldRe finds bold text in an escaped capture: the active tab.
var boldRe = regexp.MustCompile(`\x1b\[1m(?:\x1b\[[0-9;]*m)*([^\x1b]+)`)

// activeTab is the account pane's bold tab label.
func (k *walker) activeTab() string {
	esc := k.run("capture-pane", "-p", "-e", "-t", k.name)
	for _, l := range strings.Split(esc, "\n") {
		for _, m := range boldRe.FindAllStringSubmatch(l, -1) {
			name := strings.TrimSpace(m[1])
			for _, t := range tabNames {
				if name == t {
					return t
				}
			}
		}
	}
	return ""
}

func (k *walker) tab(name string) {
	k.t.Helper()
	k.focus("account")
	for i := 0; i < len(tabNames)+1 && k.activeTab() != name; i++ {
		before := k.activeTab()
		k.keys("]")
		k.poll(5*time.Second, func(string) bool { t := k.activeTab(); return t != "" && t != before })
	}
	if got := k.activeTab(); got != name {
		k.t.Fatalf("cannot reach account tab %q (active %q):\n%s", name, got, k.screen())
	}
}

// bookTitle is the book pane's title ("Book PERP_BTC_USDT by 0.2").
var bookTitleRe = regexp.MustCompile(`Book PERP_BTC_USDT[^─]*`)

func bookTitle(sc string) string { return strings.TrimSpace(bookTitleRe.FindString(sc)) }

var chartTitleRe = regexp.MustCompile(`2 ([A-Z][a-z]+(?: [a-z]+)?) PERP_BTC_USDT ?(\w*)`)

func chartTitle(sc string) string { return strings.TrimSpace(chartTitleRe.FindString(sc)) }

// gridScreens are the grid with each pane the layout shows focused (80
// columns have no watchlist), then the account pane's other tabs.
func gridScreens(sc string) []*screenDef {
	var out []*screenDef
	// The trades tape goes last: scrolling needs more trades than rows,
	// which a fresh venue takes a while to print.
	for _, p := range []string{"book", "chart", "watchlist", "account", "trades"} {
		p := p
		if !strings.Contains(sc, "╭─ "+paneDigit[p]+" ") {
			continue
		}
		out = append(out, &screenDef{
			name:  "grid/" + p,
			open:  func(k *walker) { k.focus(p) },
			isUp:  func(sc string) bool { return gridUp(sc) && focused(sc) == p },
			hints: footerLabels,
		})
	}
	for _, tb := range tabNames[1:] {
		tb := tb
		out = append(out, &screenDef{
			name:  "account tab " + tb,
			open:  func(k *walker) { k.tab(tb) },
			isUp:  func(sc string) bool { return gridUp(sc) && focused(sc) == "account" },
			hints: footerLabels,
		})
	}
	return out
}

// statsRe reads network and period off the swap stats title.
var statsRe = regexp.MustCompile(`Swap stats (\w+) (\w+)`)

func statsState(sc string) string { return strings.Join(statsRe.FindStringSubmatch(sc), " ") }

// command types a command line and runs it.
func (k *walker) command(cmd string) {
	k.keys(":")
	k.waitFor("the command line", func(sc string) bool { return strings.TrimSpace(lastLine(sc)) == ":" })
	k.literal(cmd)
	k.keys("Enter")
}

func dialogScreens() []*screenDef {
	return []*screenDef{
		{name: "zoomed book", open: func(k *walker) { k.focus("book"); k.keys("z") },
			isUp: zoomed, hints: footerLabels},
		{name: "help ?", open: func(k *walker) { k.home(); k.keys("?") },
			isUp: contains("Help (esc to close)"), hints: func(sc string) []string { return []string{"esc to close"} }},
		{name: "command line :", open: func(k *walker) { k.home(); k.keys(":") },
			isUp:  func(sc string) bool { return strings.TrimSpace(lastLine(sc)) == ":" },
			hints: func(string) []string { return []string{"esc cancel command", "enter run command"} }},
		{name: "picker /", open: func(k *walker) { k.home(); k.keys("/") },
			isUp: contains("/ symbol", "esc cancel"), hints: boxHints("enter select")},
		{name: "order form b", open: func(k *walker) { k.home(); k.keys("b") },
			isUp: contains("New order PERP_BTC_USDT", "esc close"), hints: boxHints("enter (")},
		{name: "order form s", open: func(k *walker) { k.home(); k.keys("s") },
			isUp: contains("New order PERP_BTC_USDT", "esc close"), hints: boxHints("enter (")},
		// The form's footer follows the focused row: [ ] on the price,
		// = while the row has a nearest valid value.
		{name: "order form b, price row", open: func(k *walker) { k.home(); k.keys("b"); k.formUp(); k.toField("price") },
			isUp: func(sc string) bool {
				return contains("New order PERP_BTC_USDT", "esc close")(sc) && formField(sc) == "price"
			},
			hints: boxHints("enter (")},
		{name: "order form b, quantity off its step", open: func(k *walker) {
			k.home()
			k.keys("b")
			k.formUp()
			k.toField("quantity")
			k.literal("0.000001")
		}, isUp: contains("New order PERP_BTC_USDT", "0.000001", "= nearest"), hints: boxHints("enter (")},
		// The screen reopens on the section it was left on: 1 for Info.
		{name: "account screen A", open: func(k *walker) { k.home(); k.keys("A"); k.keys("1") },
			isUp: contains("Account demo (DEMO_MAIN)", "esc close"), hints: boxHints("tab/1-9 section")},
		{name: "swap stats page S", open: func(k *walker) { k.home(); k.keys("S") },
			isUp: func(sc string) bool { return strings.Contains(sc, "esc back ─╯") && statsState(sc) != "" }, hints: footerLabels},
	}
}

// closes presses key and waits for screen d to be gone and the grid back.
func closes(key string) check {
	return func(k *walker, d *screenDef, label string) {
		k.keys(key)
		k.waitFor(label+": "+d.name+" closes to the grid", func(sc string) bool { return !d.isUp(sc) && gridUp(sc) })
	}
}

// opens presses key and waits for what the label promises, then backs out
// with esc (never y: nothing is confirmed).
func opens(key string, want func(string) bool) check {
	return func(k *walker, d *screenDef, label string) {
		k.keys(key)
		k.waitFor(label+" on "+d.name, want)
		k.home()
	}
}

// moveFocus presses key and waits for another pane to have the focus.
func moveFocus(key string) check {
	return func(k *walker, d *screenDef, label string) {
		before := focused(k.screen())
		k.keys(key)
		k.waitFor(label+": focus leaves "+before, func(sc string) bool {
			f := focused(sc)
			return gridUp(sc) && f != "" && f != before
		})
	}
}

// zoomed holds when one pane fills the grid: a single titled box.
func zoomed(sc string) bool {
	return strings.Count(sc, "╭─ ") == 1 && strings.Contains(sc, "z/esc unzoom ─╯")
}

// order form: the cursor's field.
var formCursorRe = regexp.MustCompile(`│ > (\w+)`)

func formField(sc string) string {
	if m := formCursorRe.FindStringSubmatch(sc); m != nil {
		return m[1]
	}
	return ""
}

var formPriceRe = regexp.MustCompile(`│ {1,3}(?:> )?price +([0-9.]+)`)

func formPrice(sc string) string {
	if m := formPriceRe.FindStringSubmatch(sc); m != nil {
		return m[1]
	}
	return ""
}

// toField tabs the order form's cursor to field.
func (k *walker) toField(field string) {
	k.t.Helper()
	for i := 0; i < 12 && formField(k.screen()) != field; i++ {
		before := formField(k.screen())
		k.keys("Tab")
		k.poll(5*time.Second, func(sc string) bool { f := formField(sc); return f != "" && f != before })
	}
	k.waitFor("the form's "+field+" field", func(sc string) bool { return formField(sc) == field })
}

// accountSection is the account screen's active section: the number of
// the bold label on its section bar.
func (k *walker) accountSection() string {
	esc := k.run("capture-pane", "-p", "-e", "-t", k.name)
	for _, l := range strings.Split(esc, "\n") {
		// The bar may show only a run of sections holding the active one.
		for _, m := range reverseRe.FindAllStringSubmatch(l, -1) {
			if f := strings.Fields(m[1]); len(f) > 1 && len(f[0]) == 1 && f[0] >= "1" && f[0] <= "9" || len(f) == 1 && f[0] == "Transfers" || strings.Join(f, " ") == "IP restrictions" {
				return strings.Join(f, " ")
			}
		}
	}
	return ""
}

var reverseRe = regexp.MustCompile(`\x1b\[7m(?:\x1b\[[0-9;]*m)*([^\x1b]+)`)

// watchCursorBgRe finds the watchlist's cursor: a symbol on a background
// colour (• marks the dashboard's symbol, which the cursor leaves).
var watchCursorBgRe = regexp.MustCompile(`\x1b\[48;5;\d+m([A-Z]+_[A-Z]+_[A-Z]+)`)

// reverseRow is the text of the first line in reverse video or on a
// background colour below the line holding after, in the same box (the
// cursor row of a table), or "". Only the box's columns count: at 80
// columns the trades tape beside the account pane moves on meanwhile.
func (k *walker) reverseRow(after string) string {
	esc := k.run("capture-pane", "-p", "-e", "-t", k.name)
	left, right := -1, -1
	for _, l := range strings.Split(esc, "\n") {
		plain := []rune(ansiRe.ReplaceAllString(l, ""))
		if left < 0 {
			at := strings.Index(string(plain), after)
			if at < 0 {
				continue
			}
			col := len([]rune(string(plain)[:at]))
			for left = col; left > 0 && plain[left] != '│'; left-- {
			}
			for right = col; right < len(plain) && plain[right] != '│'; right++ {
			}
			continue
		}
		if right > len(plain) || left >= len(plain) || plain[left] == '╰' {
			break
		}
		if strings.Contains(l, "\x1b[7m") || strings.Contains(l, "\x1b[48;5;") {
			return strings.Join(strings.Fields(string(plain[left:right])), " ")
		}
	}
	return ""
}

var ansiRe = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// upDown checks a pair of cursor keys on the focused list: down moves the
// cursor, up brings it back. where finds the cursor.
func upDown(down, up string, where func(k *walker) string) check {
	return func(k *walker, d *screenDef, label string) {
		before := where(k)
		if before == "" {
			k.t.Fatalf("%s on %s: no cursor on screen:\n%s", label, d.name, k.screen())
		}
		k.keys(down)
		k.waitFor(label+" moves the cursor down", func(string) bool { c := where(k); return c != "" && c != before })
		k.keys(up)
		k.waitFor(label+" moves the cursor back", func(string) bool { return where(k) == before })
	}
}

// paneCursor finds the cursor of the focused grid pane.
func paneCursor(k *walker) string {
	switch focused(k.screen()) {
	case "watchlist":
		m := watchCursorBgRe.FindStringSubmatch(k.run("capture-pane", "-p", "-e", "-t", k.name))
		if m == nil {
			return ""
		}
		return m[1]
	case "account":
		return k.reverseRow(k.activeTab())
	}
	return k.reverseRow("Time")
}

// keyChecks maps each label a screen shows to what its key must do there.
var keyChecks = map[string]check{
	"? help":        opens("?", contains("Help (esc to close)")),
	"/ symbol":      opens("/", contains("enter select · esc cancel")),
	": command":     opens(":", func(sc string) bool { return strings.TrimSpace(lastLine(sc)) == ":" }),
	"tab next pane": moveFocus("Tab"),
	"z zoom": func(k *walker, d *screenDef, label string) {
		k.keys("z")
		k.waitFor("z: one pane fills the grid", zoomed)
	},
	"z/esc unzoom": func(k *walker, d *screenDef, label string) {
		k.keys("z")
		k.waitFor("z unzooms", func(sc string) bool { return gridUp(sc) && strings.Count(sc, "╭─ ") > 1 })
		k.keys("z")
		k.waitFor("zoom again", zoomed)
		k.keys("Escape")
		k.waitFor("esc unzooms", func(sc string) bool { return gridUp(sc) && strings.Count(sc, "╭─ ") > 1 })
	},
	// The book starts ungrouped: + must coarsen it, - must undo that.
	"+ group more": groupMoreLess,
	// a: the command line opens with an alert at the selected level.
	"a alert at level": func(k *walker, d *screenDef, label string) {
		k.keys("Down")
		k.keys("a")
		k.waitFor(label+" opens the command line with the alert", func(sc string) bool {
			return strings.HasPrefix(strings.TrimSpace(lastLine(sc)), ":alert PERP_BTC_USDT ")
		})
		k.keys("Escape")
		k.waitFor("esc closes the command line", gridUp)
	},
	"- group less": groupMoreLess,
	// The chart starts at 1m, the shortest: the footer offers < only
	// once > made a shorter interval to go back to.
	"> longer candles": func(k *walker, d *screenDef, label string) {
		k.keys(">")
		k.waitFor("> gives 5m candles and offers <", func(sc string) bool {
			return chartTitle(sc) == "2 Chart PERP_BTC_USDT 5m" && (footerHas(sc, "< shorter candles") || footerFull(sc))
		})
		k.keys("<")
		k.waitFor("< back to 1m, the shortest: < no longer offered", func(sc string) bool {
			return chartTitle(sc) == "2 Chart PERP_BTC_USDT 1m" && !footerHas(sc, "< shorter candles")
		})
	},
	"< shorter candles": func(k *walker, d *screenDef, label string) {
		before := chartTitle(k.screen())
		k.keys("<")
		k.waitFor("< gives shorter candles than "+before, func(sc string) bool { c := chartTitle(sc); return c != "" && c != before })
	},
	"v candles/depth/heat map": func(k *walker, d *screenDef, label string) {
		views := map[string]bool{}
		for i := 0; i < 3; i++ {
			before := chartTitle(k.screen())
			views[chartTitleRe.FindStringSubmatch(before)[1]] = true
			k.keys("v")
			k.waitFor("v changes the chart's view", func(sc string) bool { c := chartTitle(sc); return c != "" && c != before })
		}
		if len(views) != 3 || !strings.HasPrefix(chartTitle(k.screen()), "2 Chart ") {
			k.t.Fatalf("v should cycle three views back to candles, saw %v:\n%s", views, k.screen())
		}
	},
	"↑/k up":   cursorKeys("Down", "k"),
	"↓/j down": cursorKeys("j", "Up"),
	"[ prev tab": func(k *walker, d *screenDef, label string) {
		before := k.activeTab()
		k.keys("[")
		k.waitFor("[ selects the previous tab", func(string) bool { t := k.activeTab(); return t != "" && t != before })
		if i, j := tabIndex(before), tabIndex(k.activeTab()); (j+1)%len(tabNames) != i {
			k.t.Fatalf("[ from %s went to %s", before, k.activeTab())
		}
	},
	"] next tab": func(k *walker, d *screenDef, label string) {
		before := k.activeTab()
		k.keys("]")
		k.waitFor("] selects the next tab", func(string) bool { t := k.activeTab(); return t != "" && t != before })
		if i, j := tabIndex(before), tabIndex(k.activeTab()); (i+1)%len(tabNames) != j {
			k.t.Fatalf("] from %s went to %s", before, k.activeTab())
		}
	},
	"b buy":  opens("b", contains("New order PERP_BTC_USDT", "side        BUY")),
	"s sell": opens("s", contains("New order PERP_BTC_USDT", "side        SELL")),
	// c is offered only with an open order selected (issue 29): it asks
	// to confirm the cancel, and the walk backs out.
	"c cancel order":  opens("c", contains("Cancel order", "[y]")),
	"C cancel symbol": opens("C", noticeSays("no open orders on PERP_BTC_USDT")),
	"X cancel ALL":    opens("X", contains("PANIC: cancel every order", "[n/esc] back")),
	"A account":       opens("A", contains("Account demo (DEMO_MAIN)")),
	"q quit":          func(*walker, *screenDef, string) {}, // the walk ends with q: see TestKeyWalk
	"enter (disabled: order invalid)": func(k *walker, d *screenDef, label string) {
		// The form opens with no quantity: enter must neither send nor ask.
		k.keys("Enter")
		// (It may move the cursor to the field at fault: the form stays.)
		acted := func(sc string) bool {
			return strings.Contains(sc, "[y]") || !strings.Contains(sc, "New order PERP_BTC_USDT")
		}
		// A capture taken while a frame is half written can miss the title
		// (seen once under load): what enter did stays on screen.
		if k.poll(2*time.Second, acted) {
			time.Sleep(500 * time.Millisecond)
			if sc := k.screen(); acted(sc) {
				k.t.Fatalf("enter on an invalid order did something:\n%s", sc)
			}
		}
	},
	"esc back":           closes("Escape"),
	"esc close":          closes("Escape"),
	"esc cancel":         closes("Escape"),
	"esc to close":       closes("Escape"),
	"esc cancel command": closes("Escape"),
	"tab alerts/fired": func(k *walker, d *screenDef, label string) {
		before := alertsTabRe.FindStringSubmatch(k.screen())
		k.keys("Tab")
		k.waitFor(label+" switches the tab", func(sc string) bool {
			m := alertsTabRe.FindStringSubmatch(sc)
			return before != nil && m != nil && m[1] != before[1]
		})
	},
	"enter run command": func(k *walker, d *screenDef, label string) {
		k.literal("zoom")
		k.keys("Enter")
		k.waitFor(":zoom zooms", zoomed)
	},
}

// noticeSays holds when the status bar shows text, whole: a notice that
// does not fit on the status bar goes on in the line under it.
func noticeSays(text string) func(string) bool {
	return func(sc string) bool { return strings.Contains(bottomText(sc), text) }
}

func tabIndex(name string) int {
	for i, t := range tabNames {
		if t == name {
			return i
		}
	}
	return -1
}

// screenChecks are checks whose label means something particular on one
// screen (keyed "screen name|label"); they win over keyChecks.
var screenChecks = map[string]check{
	// "order form" stands for each order form screen (see walk).
	"order form|tab next field":        formTab,
	"order form|↑↓ step":               formStep,
	"order form|[ ] bid/ask":           formBidAsk,
	"order form|= nearest":             formNearest,
	"account screen A|tab/1-9 section": accountSections,
	// Info shows its fetch time like every section: r must move it on.
	"account screen A|r reload":                refreshes("r"),
	"account screen A|m mode":                  opensOver("m", "mode"),
	"account screen A|l leverage":              opensOver("l", "everage"),
	"account tab Swap stats|n next network":    statsTabKey("n"),
	"account tab Swap stats|p longer period":   statsTabKey("p"),
	"account tab Swap stats|r refresh":         refreshes("r"),
	"account tab Swap stats|enter full screen": opens("Enter", func(sc string) bool { return strings.Contains(lastLine(sc), "esc back") && statsState(sc) != "" }),
	"swap stats page S|→/n next network":       statsPageKeys(1, "n", "Right"),
	"swap stats page S|]/p longer period":      statsPageKeys(2, "p", "]"),
	"swap stats page S|r refresh":              refreshes("r"),
	"alerts :alerts, Alerts tab|↑↓ select":     upDown("Down", "Up", selectedAlert),
	"alerts :alerts, Alerts tab|space pause":   alertPause,
	"alerts :alerts, Alerts tab|d delete":      alertDelete,
	"notice log :log|↑↓ pgup/pgdn":             logScroll,
	"grid/watchlist|enter select": selectSymbol(func(k *walker) {
		k.keys("j")
		k.waitFor("the cursor on PERP_ETH_USDT", func(string) bool { return paneCursor(k) == "PERP_ETH_USDT" })
	}, pickerBack),
	"picker /|enter select": selectSymbol(func(k *walker) {
		k.literal("perp_eth")
		k.waitFor("the match", contains("• PERP_ETH_USDT"))
	}, pickerBack),
}

func (k *walker) walk(d *screenDef) {
	k.t.Helper()
	if d.prepare != nil {
		d.prepare(k)
	}
	d.open(k)
	sc := k.waitFor(d.name, d.isUp)
	labels := d.hints(sc)
	if len(labels) == 0 {
		k.t.Fatalf("%s shows no key hints:\n%s", d.name, sc)
	}
	for _, label := range labels {
		c := screenChecks[d.name+"|"+label]
		if c == nil && strings.HasPrefix(d.name, "order form") {
			c = screenChecks["order form|"+label]
		}
		if c == nil && strings.HasPrefix(d.name, "account screen A, ") {
			c = sectionKeys[label]
		}
		if c == nil {
			c = keyChecks[label]
		}
		if c == nil {
			k.t.Errorf("%s at %dx%d shows %q, which has no check in the key walk", d.name, k.w, k.h, label)
			continue
		}
		k.seen[label]++
		d.open(k)
		k.waitFor(d.name+" before "+label, d.isUp)
		c(k, d, label)
	}
}

func TestKeyWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	needTmux(t)
	bin := buildBinary(t)
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			s := start(t, w, h, fmt.Sprintf("env -u NO_COLOR HOME=%s XDG_CONFIG_HOME=%s LANG=C.UTF-8 %s --seed 7", home, home, bin))
			k := &walker{tmux: s, w: w, h: h, seen: map[string]int{}}
			sc := k.waitFor("the dashboard", func(sc string) bool { return gridUp(sc) && strings.Contains(sc, "spread") })
			screens := append(append(gridScreens(sc), dialogScreens()...), stateScreens()...)
			for _, d := range screens {
				began := time.Now()
				k.walk(d)
				if testing.Verbose() {
					t.Logf("%dx%d %-34s %5.1fs", w, h, d.name, time.Since(began).Seconds())
				}
			}
			t.Logf("%dx%d: %d screens, %d distinct labels, %d key checks", w, h, len(screens), len(k.seen), sum(k.seen))
			k.home()
			k.keys("q")
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				if exec.Command("tmux", "-L", s.socket, "has-session", "-t", s.name).Run() != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("q did not quit:\n%s", s.screen())
				}
			}
		})
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// groupMoreLess: the book starts ungrouped, so only + is offered; + must
// coarsen it and bring -, which must undo that and go again.
func groupMoreLess(k *walker, d *screenDef, label string) {
	before := bookTitle(k.screen())
	k.keys("+")
	k.waitFor("+ groups the book coarser than "+before+" and offers -", func(sc string) bool {
		t := bookTitle(sc)
		return strings.Contains(t, " by ") && t != before && (footerHas(sc, "- group less") || footerFull(sc))
	})
	k.keys("-")
	k.waitFor("- back to "+before+", no longer offered", func(sc string) bool {
		return bookTitle(sc) == before && !footerHas(sc, "- group less")
	})
}

// footerFull reports whether the footer has no room for one more label
// (at 80 columns the pane's second key is past its end).
func footerFull(sc string) bool {
	l := []rune(strings.TrimRight(lastLine(sc), " "))
	return len(l) > len([]rune(lastLine(sc)))-16
}

// footerHas reports whether the footer offers label.
func footerHas(sc, label string) bool {
	for _, l := range footerLabels(sc) {
		if l == label {
			return true
		}
	}
	return false
}

// cursorKeys checks a list's up/down pair: on the trades tape they scroll,
// elsewhere they move a cursor.
func cursorKeys(down, up string) check {
	return func(k *walker, d *screenDef, label string) {
		if focused(k.screen()) == "trades" {
			scrollKeys(k, down, up)
			return
		}
		upDown(down, up, paneCursor)(k, d, label)
	}
}

// selectSymbol checks an "enter select" that makes the dashboard follow
// another symbol: pick (from the open list) moves to PERP_ETH_USDT and
// enter must switch the whole grid to it; back restores PERP_BTC_USDT.
func selectSymbol(pick, back func(k *walker)) check {
	return func(k *walker, d *screenDef, label string) {
		pick(k)
		k.keys("Enter")
		k.waitFor("enter switches the grid to PERP_ETH_USDT", contains("Book PERP_ETH_USDT", "Trades PERP_ETH_USDT"))
		back(k)
		k.waitFor("back on PERP_BTC_USDT", contains("Book PERP_BTC_USDT", "Trades PERP_BTC_USDT"))
	}
}

func pickerBack(k *walker) {
	k.keys("/")
	k.waitFor("the picker", contains("enter select · esc cancel"))
	k.literal("perp_btc")
	k.waitFor("the match", contains("• PERP_BTC_USDT"))
	k.keys("Enter")
}

// boxRows are the content lines of the box titled title (its header row
// first), cut to the box's columns.
func boxRows(sc, title string) []string {
	lines := strings.Split(sc, "\n")
	for i, l := range lines {
		at := strings.Index(l, title)
		if at < 0 {
			continue
		}
		r := []rune(l)
		left := len([]rune(l[:at]))
		for left > 0 && r[left] != '╭' {
			left--
		}
		right := left + 1
		for right < len(r) && r[right] != '╮' {
			right++
		}
		var out []string
		for _, l2 := range lines[i+1:] {
			r2 := []rune(l2)
			if right >= len(r2) || r2[left] != '│' {
				break
			}
			out = append(out, strings.TrimSpace(string(r2[left+1:right])))
		}
		return out
	}
	return nil
}

// scrollKeys: down shows the tape one trade further back (its rows move
// up by one), up brings the newest back. A trade printing at the same
// instant shifts the tape too, so a try that races one is repeated.
func scrollKeys(k *walker, down, up string) {
	k.t.Helper()
	tape := func() []string { return boxRows(k.screen(), "3 Trades PERP_BTC_USDT") }
	shifted := func(a, b []string) bool { // b is a scrolled one further back
		return len(a) > 4 && len(b) == len(a) && strings.Join(a[2:], "\n") == strings.Join(b[1:len(b)-1], "\n")
	}
	// Scrolling needs more trades than rows: a fresh venue has few.
	k.waitFor("a full trades tape", func(sc string) bool {
		r := boxRows(sc, "3 Trades PERP_BTC_USDT")
		return len(r) > 4 && r[len(r)-1] != ""
	})
	// A full tape may still hold no more trades than rows: keep trying
	// while new trades arrive.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		before := tape()
		k.keys(down)
		var after []string
		moved := k.poll(2*time.Second, func(string) bool { after = tape(); return shifted(before, after) })
		if !moved {
			k.keys(up)
			continue
		}
		k.keys(up)
		if k.poll(3*time.Second, func(string) bool { back := tape(); return shifted(back, after) }) {
			return
		}
	}
	k.t.Fatalf("%s/%s do not scroll the trades tape:\n%s", down, up, k.screen())
}

// statsTabKey: the key changes what the account pane's Swap stats tab
// shows (another network or period).
func statsTabKey(key string) check {
	return func(k *walker, d *screenDef, label string) {
		pane := func() string { return strings.Join(boxRows(k.screen(), "5 Account"), "\n") }
		k.waitFor("the stats tab loaded", func(string) bool { return strings.Contains(pane(), "fetched ") })
		before := statsHead(pane())
		k.keys(key)
		k.waitFor(label+" changes the stats shown", func(string) bool {
			h := statsHead(pane())
			return h != "" && h != before && strings.Contains(pane(), "fetched ")
		})
	}
}

// statsHead is the lines naming the stats' network and period (one line
// when wide, two at 80 columns).
func statsHead(pane string) string {
	var out []string
	for _, l := range strings.Split(pane, "\n") {
		if strings.Contains(l, "[") && strings.Contains(l, "]") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// statsPageKeys: on the stats page each of keys moves the title's
// network (part 1) or period (part 2).
func statsPageKeys(part int, keys ...string) check {
	return func(k *walker, d *screenDef, label string) {
		for _, key := range keys {
			before := statsRe.FindStringSubmatch(k.waitFor("the stats title", func(sc string) bool { return statsState(sc) != "" }))
			k.keys(key)
			k.waitFor(label+" ("+key+") changes "+before[part], func(sc string) bool {
				m := statsRe.FindStringSubmatch(sc)
				return m != nil && m[part] != before[part] && m[3-part] == before[3-part]
			})
		}
	}
}

var fetchedRe = regexp.MustCompile(`fetched [^│\n]*?(\d\d:\d\d:\d\d)`)

// refreshes: the key fetches again, so the "fetched" time moves on.
func refreshes(key string) check {
	return func(k *walker, d *screenDef, label string) {
		sc := k.waitFor("a fetch time", func(sc string) bool { return fetchedRe.MatchString(sc) })
		before := fetchedRe.FindStringSubmatch(sc)[1]
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
			k.keys(key)
			if k.poll(2*time.Second, func(sc string) bool {
				m := fetchedRe.FindStringSubmatch(sc)
				return m != nil && m[1] != before
			}) {
				return
			}
		}
		k.t.Fatalf("%s on %s: fetched stays %s:\n%s", label, d.name, before, k.screen())
	}
}

func formTab(k *walker, d *screenDef, label string) {
	before := formField(k.screen())
	k.keys("Tab")
	k.waitFor("tab moves the form's cursor off "+before, func(sc string) bool { f := formField(sc); return f != "" && f != before })
}

// formStep: on the price field up raises the price a step, down lowers it.
func formStep(k *walker, d *screenDef, label string) {
	k.toField("price")
	before := formPrice(k.screen())
	k.keys("Up")
	up := formPrice(k.waitFor("up raises the price", func(sc string) bool { p := formPrice(sc); return p != "" && p > before }))
	k.keys("Down")
	k.waitFor("down lowers it back", func(sc string) bool { p := formPrice(sc); return p != "" && p < up })
}

// formBidAsk: [ puts the best bid in the price, ] the best ask, from
// the row the screen shows (issue 29: from any row of a priced form), and
// the cursor stays there: the ask comes out above the bid. (The header's
// figures move on too fast to compare with.)
//
// The form is opened right after the walk switched the symbol back: the
// book may not be synced yet, and "[" on no book changes nothing (the
// lost "[" once seen at 80x24). The form fills its price when the book
// arrives: that drawn price is the event to wait for. A typed price marks
// the moment before the keys.
func formBidAsk(k *walker, d *screenDef, label string) {
	row := formField(k.screen())
	k.toField("price")
	prefilled := formPrice(k.waitFor("the form's price from the synced book", func(sc string) bool { return formPrice(sc) != "" }))
	k.literal("9")
	typed := formPrice(k.waitFor("a typed price", func(sc string) bool { p := formPrice(sc); return len(p) > len(prefilled) && strings.HasSuffix(p, "9") }))
	k.toField(row)
	k.keys("[")
	bid := formPrice(k.waitFor("[ on the "+row+" row puts the bid", func(sc string) bool {
		p := formPrice(sc)
		return p != "" && p != typed && formField(sc) == row
	}))
	k.keys("]")
	k.waitFor("] on the "+row+" row puts the ask, above the bid "+bid, func(sc string) bool {
		p := formPrice(sc)
		return p != "" && p != bid && numLess(bid, p) && formField(sc) == row
	})
}

// numLess compares two decimal prices.
func numLess(a, b string) bool {
	var x, y float64
	if _, err := fmt.Sscan(a, &x); err != nil {
		return false // not a price (yet): the waiter reads the screen again
	}
	if _, err := fmt.Sscan(b, &y); err != nil {
		return false
	}
	return x < y
}

// formUp waits for the order form.
func (k *walker) formUp() {
	k.waitFor("the order form", contains("New order PERP_BTC_USDT", "esc close"))
}

// formNearest: a quantity below the step becomes the nearest valid one.
func formNearest(k *walker, d *screenDef, label string) {
	if !strings.Contains(k.screen(), "0.000001") {
		k.toField("quantity")
		k.literal("0.000001")
		k.waitFor("the typed quantity", contains("0.000001"))
	}
	k.keys("=")
	k.waitFor("= replaces it by a valid quantity", func(sc string) bool { return !strings.Contains(sc, "0.000001") })
}

// accountSections: tab moves to the next section, each digit to its own.
func accountSections(k *walker, d *screenDef, label string) {
	before := k.accountSection()
	k.keys("Tab")
	k.waitFor("tab leaves section "+before, func(string) bool { s := k.accountSection(); return s != "" && s != before })
	for n := 1; n <= 9; n++ {
		dg := fmt.Sprint(n)
		k.keys(dg)
		k.waitFor("section "+dg, func(string) bool { return strings.HasPrefix(k.accountSection(), dg+" ") })
	}
}

// opensOver: the key opens a prompt over the account screen whose text
// holds what; esc backs out of it (nothing is changed) to the screen.
func opensOver(key, what string) check {
	return func(k *walker, d *screenDef, label string) {
		before := strings.Count(k.screen(), "╭─")
		k.keys(key)
		k.waitFor(label+" opens its prompt", func(sc string) bool { return strings.Count(sc, "╭─") > before && strings.Contains(sc, what) })
		k.keys("Escape")
		k.waitFor("esc back to "+d.name, func(sc string) bool { return d.isUp(sc) && strings.Count(sc, "╭─") == before })
	}
}

// stateScreens are the screens that need some state to show their keys:
// the alerts dialog with alerts to select, pause and delete and one that
// fired, the notice log longer than the screen, and each section of the
// account screen after Info.
func stateScreens() []*screenDef {
	out := []*screenDef{
		{name: "alerts :alerts, Fired tab", prepare: addAlerts, open: alertsTab("Fired (1"),
			isUp: contains("[Fired (1"), hints: boxHints("tab alerts/fired")},
		{name: "alerts :alerts, Alerts tab", open: alertsTab("Alerts ("),
			isUp: contains("[Alerts ("), hints: boxHints("tab alerts/fired")},
		{name: "notice log :log", prepare: fillLog, open: func(k *walker) { k.home(); k.command("log") },
			isUp: contains("Notices, newest first"), hints: logHints},
	}
	for _, sec := range []string{"2 Tokens", "3 Interest", "4 Interest hist.", "5 Funding fees", "6 Asset history",
		"7 Deposit", "8 Subaccounts", "9 Sub assets", "Transfers", "IP restrictions"} {
		out = append(out, &screenDef{name: "account screen A, " + sec, open: accountSection(sec),
			isUp: accountUp, hints: boxHints("tab/1-9 section")})
	}
	return out
}

// addAlerts sets two alerts that stay active (1 and 2) and one that fires
// at the next trade (3).
func addAlerts(k *walker) {
	k.home()
	for _, a := range []string{"above 9999999", "below 1", "above 1"} {
		k.command("alert PERP_BTC_USDT " + a)
		k.waitFor("the command line closes", gridUp)
	}
}

// alertsTab opens :alerts on the tab whose label starts with tab.
func alertsTab(tab string) func(k *walker) {
	return func(k *walker) {
		k.home()
		k.command("alerts")
		sc := k.waitFor("the alerts dialog", contains("Alerts (esc to close)"))
		if !strings.Contains(sc, "["+tab) {
			k.keys("Tab")
		}
		k.waitFor("the alerts dialog on "+tab, contains("["+tab))
	}
}

// alertRowRe reads an alert's row off the alerts tab: id and state.
var alertRowRe = regexp.MustCompile(`│ +(\d+)  (active|paused|fired) `)

func alertState(sc, id string) string {
	for _, m := range alertRowRe.FindAllStringSubmatch(sc, -1) {
		if m[1] == id {
			return m[2]
		}
	}
	return ""
}

// selectedAlert is the id of the alert on a background colour (the cursor).
var selectedAlertRe = regexp.MustCompile(`\x1b\[48;5;\d+m +(\d+)  (?:active|paused|fired) `)

func selectedAlert(k *walker) string {
	if m := selectedAlertRe.FindStringSubmatch(k.run("capture-pane", "-p", "-e", "-t", k.name)); m != nil {
		return m[1]
	}
	return ""
}

var alertsTabRe = regexp.MustCompile(`\[(Alerts|Fired) \(`)

// alertPause: space pauses the selected (active) alert, and the label
// turns to resume; space again resumes it.
func alertPause(k *walker, d *screenDef, label string) {
	id := selectedAlert(k)
	if alertState(k.screen(), id) != "active" {
		k.t.Fatalf("%s offered on alert %q, which is not active:\n%s", label, id, k.screen())
	}
	k.keys("Space")
	k.waitFor(label+" pauses alert "+id, func(sc string) bool {
		return alertState(sc, id) == "paused" && strings.Contains(sc, "space resume")
	})
	k.keys("Space")
	k.waitFor("space resumes alert "+id, func(sc string) bool {
		return alertState(sc, id) == "active" && strings.Contains(sc, "space pause")
	})
}

var alertsCountRe = regexp.MustCompile(`\[Alerts \((\d+)\)`)

// alertDelete: d removes the selected alert from the list.
func alertDelete(k *walker, d *screenDef, label string) {
	sc := k.screen()
	id, n := selectedAlert(k), alertsCountRe.FindStringSubmatch(sc)
	if id == "" || n == nil {
		k.t.Fatalf("%s: no selected alert or count:\n%s", label, sc)
	}
	k.keys("d")
	k.waitFor(label+" removes alert "+id, func(sc string) bool {
		m := alertsCountRe.FindStringSubmatch(sc)
		return m != nil && m[1] != n[1] && alertState(sc, id) == ""
	})
}

// fillLog gives the notice log more distinct notices than rows, so that
// its scroll keys are offered (and can be seen to scroll).
func fillLog(k *walker) {
	k.home()
	var keys []string
	for i := 0; i < k.h+10; i++ {
		keys = append(keys, ":", fmt.Sprintf("nosuch%d", i), "Enter")
	}
	k.keys(keys...)
	last := fmt.Sprintf("nosuch%d", k.h+9)
	k.waitFor("the last notice", func(sc string) bool { return gridUp(sc) && strings.Contains(sc, last) || gridUp(sc) && k.w < 100 })
}

// logHints are the keys the notice log names in its title.
func logHints(sc string) []string {
	for _, l := range strings.Split(sc, "\n") {
		if _, after, ok := strings.Cut(l, "Notices, newest first ("); ok {
			_, after, _ = strings.Cut(after, ") · ")
			after, _, _ = strings.Cut(after, " ─")
			return strings.Split(after, " · ")
		}
	}
	return nil
}

// logTop is the notice log's first line.
func logTop(k *walker) string {
	if r := boxRows(k.screen(), "Notices, newest first"); len(r) > 0 {
		return r[0]
	}
	return ""
}

// logScroll: down and page down show older notices, up and page up come
// back to the newest.
func logScroll(k *walker, d *screenDef, label string) {
	for _, pair := range [][2]string{{"Down", "Up"}, {"PageDown", "PageUp"}} {
		top := logTop(k)
		k.keys(pair[0])
		k.waitFor(pair[0]+" scrolls the log", func(string) bool { t := logTop(k); return t != "" && t != top })
		k.keys(pair[1])
		k.waitFor(pair[1]+" scrolls it back", func(string) bool { return logTop(k) == top })
	}
}

// accountUp: the account screen, whatever its title (it names the
// account once Info has loaded, which the venue's account_info budget
// may delay when the walk reopens the screen often).
func accountUp(sc string) bool {
	return strings.Contains(sc, "╭─ Account") && strings.Contains(sc, "tab/1-9 section")
}

// accountSection opens the account screen on a section, loaded (from the
// screen if it is up: a digit, or tab after 9 for the sections past it).
func accountSection(sec string) func(k *walker) {
	return func(k *walker) {
		if !accountUp(k.screen()) {
			k.home()
			k.keys("A")
			k.waitFor("the account screen", accountUp)
		}
		switch d := sec[:1]; {
		case d >= "1" && d <= "9":
			k.keys(d)
		case sec == "Transfers":
			k.keys("9", "Tab")
		default:
			k.keys("9", "Tab", "Tab")
		}
		k.waitFor("section "+sec+" loaded", func(sc string) bool {
			return !strings.Contains(sc, "loading…") && k.accountSection() == sec
		})
	}
}

// selectedAccountRow is the account screen's cursor row: the line on a
// background colour (the section bar's active label is in reverse video).
func selectedAccountRow(k *walker) string {
	for _, l := range strings.Split(k.run("capture-pane", "-p", "-e", "-t", k.name), "\n") {
		plain := ansiRe.ReplaceAllString(l, "")
		if strings.HasPrefix(plain, "│") && strings.Contains(l, "\x1b[48;5;") && !strings.Contains(l, "\x1b[7m") {
			return strings.Join(strings.Fields(plain), " ")
		}
	}
	return ""
}

// sectionKeys are the account screen's keys outside Info (Info's own
// are in screenChecks).
var sectionKeys = map[string]check{
	"tab/1-9 section": func(k *walker, d *screenDef, label string) {
		before := k.accountSection()
		k.keys("Tab")
		k.waitFor("tab leaves section "+before, func(string) bool { s := k.accountSection(); return s != "" && s != before })
	},
	"↑↓ row":     upDown("Down", "Up", selectedAccountRow),
	"f filters":  opensOver("f", "filters"),
	"p repay":    opensOver("p", "Repay interest"),
	"t transfer": opensOver("t", "Transfer between accounts"),
	"enter deposit address": func(k *walker, d *screenDef, label string) {
		k.keys("Enter")
		k.waitFor(label+" shows the address", contains("deposit address of "))
	},
	"enter detail": func(k *walker, d *screenDef, label string) {
		k.keys("Enter")
		k.waitFor(label+" shows the subaccount's assets", contains("assets of "))
	},
	"r reload":        refreshes("r"),
	"] next page":     pageKey("]", 1),
	"[ previous page": pageKey("[", -1),
	"[ ] page":        pageKey("]", 1),
}

var pageRe = regexp.MustCompile(`page (\d+)`)

// pageKey: the key moves the section's page number by delta.
func pageKey(key string, delta int) check {
	return func(k *walker, d *screenDef, label string) {
		m := pageRe.FindStringSubmatch(k.screen())
		if m == nil {
			k.t.Fatalf("%s on %s: no page number:\n%s", label, d.name, k.screen())
		}
		var n int
		if _, err := fmt.Sscan(m[1], &n); err != nil {
			k.t.Fatalf("%s on %s: page number %q: %v", label, d.name, m[1], err)
		}
		want := fmt.Sprintf("page %d ", n+delta)
		k.keys(key)
		k.waitFor(label+" shows "+want, contains(want))
	}
}
