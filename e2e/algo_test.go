package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	_ "modernc.org/sqlite" // read the desk's database as a user would

	"tradedeck/e2e/bintest"
	"tradedeck/venue"
)

// The protective-orders engine as a user runs it: `tradedeck desk`
// against `tradedeck sim` (a process, reached as the live venue), armed
// with `tradedeck algo add`, killed with SIGKILL, the market moved through
// the simulator's REST by another account, and started again.

const moverKey, moverSecret, moverApp = "MoverKey000000000000000A==", "MOVERSECRET0000000000000000000", "11111111-2222-3333-4444-555555555555"

// deskWorld is one simulator process, a mover account on it, and a home
// (config, state directory) for the desk and algo commands.
type deskWorld struct {
	t      *testing.T
	bin    string
	sim    *bintest.Sim
	mover  *venue.Client
	home   string
	config string
	env    []string
}

func newDeskWorld(t *testing.T) *deskWorld {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test")
	}
	bin := buildBinary(t)
	home := t.TempDir()
	var u map[string]any
	out, err := exec.Command(bin, "sim", "--print-universe").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &u); err != nil {
		t.Fatal(err)
	}
	accts := u["accounts"].([]any)
	mover := map[string]any{}
	for k, v := range accts[0].(map[string]any) {
		mover[k] = v
	}
	mover["name"], mover["alias"], mover["api_key"], mover["api_secret"], mover["application_id"] = "MOVER", "mover", moverKey, moverSecret, moverApp
	mover["balances"] = map[string]any{"USDT": "50000000", "BTC": "100", "ETH": "1000"}
	u["accounts"] = append(accts, mover)
	b, _ := json.Marshal(u)
	uni := filepath.Join(home, "universe.json")
	if err := os.WriteFile(uni, b, 0o600); err != nil {
		t.Fatal(err)
	}
	sim := bintest.StartSim(t, bin, "--universe", uni, "--rate", "off", "--no-rate-limits")
	w := &deskWorld{t: t, bin: bin, sim: sim, home: home,
		mover: venue.NewClient(sim.Banner.Endpoints, venue.Credentials{APIKey: moverKey, APISecret: moverSecret, ApplicationID: moverApp})}
	w.config = sim.Banner.LiveConfig(t, home, "")
	w.env = append(os.Environ(), append(sim.Banner.KeysEnv(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_STATE_HOME="+home, "NO_COLOR=1")...)
	return w
}

// deskProc is a running `tradedeck desk --json`: its events as they come.
type deskProc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	events []map[string]any
	stderr strings.Builder
	ready  chan struct{}
	done   chan struct{}
}

func (w *deskWorld) startDesk() *deskProc {
	w.t.Helper()
	cmd := exec.Command(w.bin, "desk", "--live", "--config", w.config, "--json")
	cmd.Env = w.env
	out, _ := cmd.StdoutPipe()
	errp, _ := cmd.StderrPipe()
	d := &deskProc{cmd: cmd, ready: make(chan struct{}), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { _ = cmd.Process.Kill(); <-d.done })
	go func() {
		sc := bufio.NewScanner(errp)
		once := sync.Once{}
		for sc.Scan() {
			d.mu.Lock()
			d.stderr.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
			if strings.Contains(sc.Text(), "engine ready") {
				once.Do(func() { close(d.ready) })
			}
		}
	}()
	go func() {
		defer close(d.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				d.mu.Lock()
				d.events = append(d.events, ev)
				d.mu.Unlock()
			}
		}
		_ = cmd.Wait()
	}()
	select {
	case <-d.ready:
	case <-d.done:
		w.t.Fatalf("the desk ended before it was ready:\n%s", d.log())
	case <-time.After(30 * time.Second):
		w.t.Fatalf("the desk was not ready in 30 s:\n%s", d.log())
	}
	return d
}

func (d *deskProc) log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stderr.String()
}

// waitEvent waits for an event of kind about algo id.
func (d *deskProc) waitEvent(t *testing.T, kind string, id int64) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		d.mu.Lock()
		for _, ev := range d.events {
			if ev["event"] == kind && int64(num(ev["algo"])) == id {
				d.mu.Unlock()
				return ev
			}
		}
		d.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t.Fatalf("no %q event for algo %d; events %v\nstderr:\n%s", kind, id, d.events, d.stderr.String())
	return nil
}

func num(v any) float64 { f, _ := v.(float64); return f }

// kill9 ends the desk as a crash would.
func (d *deskProc) kill9(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.done
}

// algo runs `tradedeck algo ARGS --live --config ...` and returns its
// output and error.
func (w *deskWorld) algo(args ...string) (string, error) {
	cmd := exec.Command(w.bin, append(append([]string{"algo"}, args...), "--live", "--config", w.config)...)
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (w *deskWorld) addAlgo(line string) int64 {
	w.t.Helper()
	out, err := w.algo(append([]string{"add"}, append(strings.Fields(line), "--json")...)...)
	if err != nil {
		w.t.Fatalf("algo add %s: %v\n%s", line, err, out)
	}
	var a struct {
		ID    int64  `json:"id"`
		State string `json:"state"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &a); err != nil || a.ID == 0 || a.State != "armed" {
		w.t.Fatalf("algo add %s: %q (%v)", line, out, err)
	}
	return a.ID
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// open buys (or sells) qty at market for the desk's account.
func (w *deskWorld) open(sym string, side venue.Side, qty string) {
	w.t.Helper()
	if _, err := w.sim.Client.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.Market, Side: side, Quantity: dec(qty)}); err != nil {
		w.t.Fatal(err)
	}
}

// sweep is the mover taking the book down (SELL) or up (BUY) to price.
func (w *deskWorld) sweep(sym string, side venue.Side, price decimal.Decimal, qty string) {
	w.t.Helper()
	if _, err := w.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.IOC, Side: side, Price: price, Quantity: dec(qty)}); err != nil {
		w.t.Fatalf("mover: %v", err)
	}
}

// quote rests a mover's order (so the book has a level there).
func (w *deskWorld) quote(sym string, side venue.Side, price decimal.Decimal, qty string) {
	w.t.Helper()
	if _, err := w.mover.SendOrder(context.Background(), venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: side, Price: price, Quantity: dec(qty)}); err != nil {
		w.t.Fatalf("mover quote: %v", err)
	}
}

func (w *deskWorld) bid(sym string) decimal.Decimal {
	w.t.Helper()
	b, err := w.sim.Client.OrderBook(context.Background(), sym, 1)
	if err != nil || len(b.Bids) == 0 {
		w.t.Fatalf("book %s: %v", sym, err)
	}
	return b.Bids[0].Price
}

func (w *deskWorld) position(sym string) decimal.Decimal {
	w.t.Helper()
	p, err := w.sim.Client.Position(context.Background(), sym)
	if err != nil {
		w.t.Fatal(err)
	}
	return p.Holding
}

// venueOrders are the account's orders on the venue whose client order id
// is one of the engine's for algo id (18 digits: prefix, algo, leg,
// attempt): what the venue received, whatever the desk remembers.
func (w *deskWorld) venueOrders(sym string, prefix, id int64) []venue.Order {
	w.t.Helper()
	var out []venue.Order
	for page := 1; page < 50; page++ {
		rows, meta, err := w.sim.Client.ListOrders(context.Background(), venue.OrderFilter{Symbol: sym, Page: page})
		if err != nil {
			w.t.Fatal(err)
		}
		for _, o := range rows {
			if cid := int64(o.ClientOrderID); cid/1_000_000_000_000_000 == prefix && cid%1_000_000_000_000_000/1_000_000 == id {
				out = append(out, o)
			}
		}
		if !meta.HasNext(len(rows)) {
			break
		}
	}
	return out
}

// db is the desk's database, read with database/sql as any SQLite reader.
func (w *deskWorld) db() *sql.DB {
	w.t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(w.home, "tradedeck", "desk.db")+"?mode=ro")
	if err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { db.Close() })
	return db
}

func (w *deskWorld) prefix(db *sql.DB) int64 {
	w.t.Helper()
	var v string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'cid_prefix'`).Scan(&v); err != nil {
		w.t.Fatalf("meta: %v", err)
	}
	p, _ := strconv.ParseInt(v, 10, 64)
	return p
}

type childRow struct {
	cid      int64
	status   string
	executed string
}

func children(t *testing.T, db *sql.DB, id int64) (state string, kids []childRow) {
	t.Helper()
	if err := db.QueryRow(`SELECT state FROM algos WHERE id = ?`, id).Scan(&state); err != nil {
		t.Fatalf("algo %d in the database: %v", id, err)
	}
	rows, err := db.Query(`SELECT cid, status, executed FROM children WHERE algo_id = ? ORDER BY cid`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c childRow
		if err := rows.Scan(&c.cid, &c.status, &c.executed); err != nil {
			t.Fatal(err)
		}
		kids = append(kids, c)
	}
	return state, kids
}

// agree checks the database against the venue for algo id: the same
// client order ids, each venue order's final status and fill recorded.
func agree(t *testing.T, w *deskWorld, db *sql.DB, sym string, id int64) []venue.Order {
	t.Helper()
	// The algo's final state and its exit's fill are two commits (the
	// position can be seen flat before the fill's report): the database
	// catches up within moments, and must then agree with the venue.
	deadline := time.Now().Add(10 * time.Second)
	for {
		orders, disagree := disagreement(t, w, db, sym, id)
		if disagree == "" {
			return orders
		}
		if time.Now().After(deadline) {
			t.Fatal(disagree)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// disagreement is how the database's children of algo id differ from the
// venue's orders ("" when they agree), with those orders.
func disagreement(t *testing.T, w *deskWorld, db *sql.DB, sym string, id int64) ([]venue.Order, string) {
	t.Helper()
	state, kids := children(t, db, id)
	orders := w.venueOrders(sym, w.prefix(db), id)
	onVenue := map[int64]venue.Order{}
	for _, o := range orders {
		onVenue[int64(o.ClientOrderID)] = o
	}
	for _, c := range kids {
		o, ok := onVenue[c.cid]
		switch {
		case !ok && c.status != "NOT_SENT":
			return orders, fmt.Sprintf("algo %d: child %d is %s in the database, unknown to the venue", id, c.cid, c.status)
		case ok && c.status != string(o.Status):
			return orders, fmt.Sprintf("algo %d: child %d is %s in the database, %s on the venue", id, c.cid, c.status, o.Status)
		case ok && !dec(c.executed).Equal(o.Executed):
			return orders, fmt.Sprintf("algo %d: child %d executed %s in the database, %s on the venue", id, c.cid, c.executed, o.Executed)
		}
		delete(onVenue, c.cid)
	}
	if len(onVenue) > 0 {
		return orders, fmt.Sprintf("algo %d (%s): the venue has orders the database lacks: %v", id, state, onVenue)
	}
	return orders, ""
}

func waitDB(t *testing.T, db *sql.DB, id int64, want string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var state string
	for time.Now().Before(deadline) {
		_ = db.QueryRow(`SELECT state FROM algos WHERE id = ?`, id).Scan(&state)
		if state == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("algo %d is %q in the database, want %q", id, state, want)
}

// kill -9 of the desk right after arming; the market crosses the stop
// while no engine runs; the restarted desk fires it once, says why, and
// the venue, the database and the position agree.
func TestDeskKilledAfterArmingFiresOnceOnRestart(t *testing.T) {
	w := newDeskWorld(t)
	const sym = "PERP_ETH_USDT"
	w.open(sym, venue.Buy, "0.5")
	d := w.startDesk()
	trigger := w.bid(sym).Mul(dec("0.995")).Round(2)
	id := w.addAlgo(fmt.Sprintf("stop %s %s", sym, trigger))
	d.waitEvent(t, "armed", id)
	d.kill9(t)

	// The market goes through the stop and stays there, no engine running.
	w.sweep(sym, venue.Sell, trigger.Sub(dec("5")), "200")
	w.quote(sym, venue.Buy, trigger.Sub(dec("5")), "20")
	if b := w.bid(sym); b.GreaterThan(trigger) {
		t.Fatalf("the bid %s is still above the stop %s", b, trigger)
	}
	out, _ := w.algo("list")
	if !strings.Contains(out, "engine not running: nothing protects these positions") || !strings.Contains(out, "armed") {
		t.Fatalf("algo list with no engine:\n%s", out)
	}

	d2 := w.startDesk()
	d2.waitEvent(t, "triggered", id)
	db := w.db()
	waitDB(t, db, id, "done")
	orders := agree(t, w, db, sym, id)
	if len(orders) != 1 || orders[0].Side != venue.Sell || orders[0].Type != venue.Market || orders[0].Status != venue.StatusFilled {
		t.Fatalf("the venue received %+v, want one filled MARKET SELL", orders)
	}
	if p := w.position(sym); !p.IsZero() {
		t.Fatalf("position %s after the stop", p)
	}
	// One firing, with its reason: the bid still through the stop once
	// the stream is back, or the trades while no engine ran.
	var n int
	var why string
	if err := db.QueryRow(`SELECT count(*), max(why) FROM triggers WHERE algo_id = ?`, id).Scan(&n, &why); err != nil || n != 1 ||
		(!strings.Contains(why, "<= stop "+trigger.String()) && !strings.Contains(why, "no engine ran")) {
		t.Fatalf("%d firings, why %q (%v)", n, why, err)
	}
	d2.kill9(t)
}

// kill -9 of the desk right after the trigger sent its child order; the
// market moves on meanwhile; on restart the stop is found done (or its
// child looked up by client order id), and nothing is sent twice.
func TestDeskKilledAfterTriggerSendsNothingTwice(t *testing.T) {
	w := newDeskWorld(t)
	const sym = "PERP_BTC_USDT"
	w.open(sym, venue.Buy, "0.05")
	d := w.startDesk()
	trigger := w.bid(sym).Mul(dec("0.995")).Round(1)
	id := w.addAlgo(fmt.Sprintf("stop %s %s", sym, trigger))
	d.waitEvent(t, "armed", id)
	w.sweep(sym, venue.Sell, trigger.Sub(dec("20")), "50")
	w.quote(sym, venue.Buy, trigger.Sub(dec("20")), "2")
	d.waitEvent(t, "triggered", id)
	d.kill9(t)
	// The market moves on while nothing runs.
	w.sweep(sym, venue.Sell, trigger.Sub(dec("200")), "50")
	w.quote(sym, venue.Buy, trigger.Sub(dec("200")), "2")

	d2 := w.startDesk()
	db := w.db()
	waitDB(t, db, id, "done")
	time.Sleep(time.Second) // anything sent twice would be on the venue by now
	orders := agree(t, w, db, sym, id)
	filled := 0
	for _, o := range orders {
		if o.Status == venue.StatusFilled {
			filled++
		}
	}
	if filled != 1 || len(orders) > 1 {
		t.Fatalf("the venue received %d orders of the stop (%d filled), want exactly one: %+v\n%s", len(orders), filled, orders, d2.log())
	}
	if p := w.position(sym); !p.IsZero() {
		t.Fatalf("position %s after the stop", p)
	}
	d2.kill9(t)
}

// A second process on the same account: a second desk is refused and
// names the first; `algo` commands and a dashboard-like view go to the
// running engine; when the first desk is killed, a new one takes over:
// two engines never run at once.
func TestSecondProcessIsAViewNeverASecondEngine(t *testing.T) {
	w := newDeskWorld(t)
	const sym = "PERP_ETH_USDT"
	w.open(sym, venue.Buy, "0.2")
	d := w.startDesk()
	pid := d.cmd.Process.Pid

	second := exec.Command(w.bin, "desk", "--live", "--config", w.config)
	second.Env = w.env
	b, err := second.CombinedOutput()
	if err == nil || !strings.Contains(string(b), fmt.Sprintf("already runs in process %d (tradedeck desk)", pid)) {
		t.Fatalf("a second desk: %v\n%s", err, b)
	}

	trigger := w.bid(sym).Mul(dec("0.99")).Round(2)
	id := w.addAlgo(fmt.Sprintf("stop %s %s", sym, trigger))
	out, err := w.algo("list")
	if err != nil || !strings.Contains(out, fmt.Sprintf("engine in process %d (tradedeck desk)", pid)) || !strings.Contains(out, "armed") {
		t.Fatalf("algo list: %v\n%s", err, out)
	}
	out, err = w.algo("list", "--json")
	if err != nil || !strings.Contains(out, `"engine":"running"`) || !strings.Contains(out, `"source":"bid"`) {
		t.Fatalf("algo list --json: %v\n%s", err, out)
	}
	// Through the market: refused with the reason unless chosen.
	out, err = w.algo("add", "stop", sym, w.bid(sym).Mul(dec("1.05")).Round(2).String())
	if err == nil || !strings.Contains(out, "--fire-if-through") {
		t.Fatalf("a stop through the market: %v\n%s", err, out)
	}

	d.kill9(t)
	out, err = w.algo("add", "stop", sym, trigger.String())
	if err == nil || !strings.Contains(out, "engine not running") || !strings.Contains(out, "tradedeck desk --live") {
		t.Fatalf("algo add with no engine: %v\n%s", err, out)
	}
	d2 := w.startDesk()
	out, err = w.algo("cancel", strconv.FormatInt(id, 10))
	if err != nil || !strings.Contains(out, "cancelled") {
		t.Fatalf("cancel through the new desk: %v\n%s", err, out)
	}
	d2.waitEvent(t, "cancelled", id)
	out, _ = w.algo("list", "--json")
	if !strings.Contains(out, `"state":"cancelled"`) {
		t.Fatalf("after cancel: %s", out)
	}

	// A working order paused and resumed from the command line; a
	// protective one cannot be paused.
	out, err = w.algo("add", "chase", sym, "buy", "0.05", "offset", "100", "--json")
	var chase struct {
		ID    int64  `json:"id"`
		State string `json:"state"`
	}
	if err != nil || json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &chase) != nil || chase.State != "working" {
		t.Fatalf("algo add chase: %v\n%s", err, out)
	}
	cid := strconv.FormatInt(chase.ID, 10)
	if out, err = w.algo("pause", cid); err != nil || !strings.Contains(out, "algo "+cid+" paused") {
		t.Fatalf("algo pause: %v\n%s", err, out)
	}
	d2.waitEvent(t, "paused", chase.ID)
	if out, _ = w.algo("list", "--json"); !strings.Contains(out, `"state":"paused"`) {
		t.Fatalf("after pause: %s", out)
	}
	if out, err = w.algo("resume", cid); err != nil || !strings.Contains(out, "algo "+cid+" resumed") {
		t.Fatalf("algo resume: %v\n%s", err, out)
	}
	d2.waitEvent(t, "resumed", chase.ID)
	if out, err = w.algo("pause", strconv.FormatInt(id, 10)); err == nil || !strings.Contains(out, "cannot be paused") {
		t.Fatalf("a stop paused: %v\n%s", err, out)
	}
}
