package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/venue"
)

// tradedeckBinary builds the real binary into the test's temporary
// directory (removed with it; the build cache makes it a link step).
func tradedeckBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tradedeck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// simProcess is `tradedeck sim` running as a child process.
type simProcess struct {
	cmd    *exec.Cmd
	client *venue.Client
	banner simBanner
}

// startSimProcess starts the binary with args and reads its JSON banner.
func startSimProcess(t *testing.T, bin string, args ...string) *simProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"sim", "--json"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no banner: %v\n%s", err, stderr.String())
	}
	p := &simProcess{cmd: cmd}
	if err := json.Unmarshal([]byte(line), &p.banner); err != nil {
		t.Fatalf("banner %q: %v", line, err)
	}
	b := p.banner
	p.client = venue.NewClient(venue.Endpoints{BaseURL: b.BaseURL, PublicHistoryURL: b.PublicHistoryURL,
		WSMarketURL: b.WSMarketURL, WSPrivateURL: b.WSPrivateURL, StatsURL: b.StatsURL},
		venue.Credentials{APIKey: b.APIKey, APISecret: b.APISecret, ApplicationID: b.ApplicationID})
	return p
}

// kill9 ends the process as a crash would: no shutdown, no final save.
func (p *simProcess) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	p.cmd.Wait()
}

type accountView struct {
	open     []int64
	balances map[string]string // token -> holding/frozen
	trades   []int64
}

func viewAccount(t *testing.T, c *venue.Client) accountView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	v := accountView{balances: map[string]string{}}
	orders, _, err := c.ListOrders(ctx, venue.OrderFilter{Status: venue.StatusIncomplete})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range orders {
		v.open = append(v.open, o.OrderID.Int64())
	}
	hs, err := c.HoldingV2(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		v.balances[h.Token] = h.Holding.String() + "/" + h.Frozen.String()
	}
	trades, _, err := c.ListTrades(ctx, venue.TradeFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range trades {
		v.trades = append(v.trades, tr.ID.Int64())
	}
	slices.Sort(v.open)
	slices.Sort(v.trades)
	return v
}

// TestSimKill9KeepsAcknowledgedOrders is issue 12's point 6 with the real
// binary: orders acknowledged just before a kill -9 (no checkpoint since)
// are back after a restart with their fills, balances and frozen amounts,
// new ids are greater, and a record torn by the crash does not stop the
// restart.
func TestSimKill9KeepsAcknowledgedOrders(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--state", state, "--rate", "off", "--no-history", "--seed", "3"}
	bin := tradedeckBinary(t)
	p := startSimProcess(t, bin, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last int64
	for i, sym := range []string{"SPOT_BTC_USDT", "SPOT_ETH_USDT", "SPOT_BTC_USDT", "SPOT_ETH_USDT"} {
		book, err := p.client.OrderBook(ctx, sym, 5)
		if err != nil {
			t.Fatal(err)
		}
		price := book.Bids[len(book.Bids)-1].Price.Sub(decimal.NewFromInt(int64(10 + i))) // rests below the book
		qty := decimal.RequireFromString("0.01")
		if sym == "SPOT_ETH_USDT" {
			qty = decimal.RequireFromString("0.1")
		}
		ack, err := p.client.SendOrder(ctx, venue.OrderRequest{Symbol: sym, Type: venue.Limit, Side: venue.Buy, Price: price, Quantity: qty})
		if err != nil {
			t.Fatal(err)
		}
		last = max(last, ack.OrderID.Int64())
	}
	ack, err := p.client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.002")}) // fills against the seeded book
	if err != nil {
		t.Fatal(err)
	}
	last = max(last, ack.OrderID.Int64())
	before := viewAccount(t, p.client)
	p.kill9(t)
	if len(before.open) != 4 || len(before.trades) == 0 {
		t.Fatalf("before the crash: %+v", before)
	}

	// a crash in the middle of a write leaves a partial record at the tail
	segs, _ := filepath.Glob(state + ".journal.*")
	if len(segs) == 0 {
		t.Fatal("no journal segment next to the state file")
	}
	f, err := os.OpenFile(segs[len(segs)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{200, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9, 9, 9, 9, 9, 9, '{', '"'})
	f.Close()

	p2 := startSimProcess(t, bin, args...)
	after := viewAccount(t, p2.client)
	if !slices.Equal(before.open, after.open) || !slices.Equal(before.trades, after.trades) {
		t.Fatalf("orders or fills lost in the crash:\nbefore %+v\nafter  %+v", before, after)
	}
	for tok, b := range before.balances {
		if after.balances[tok] != b {
			t.Fatalf("%s holding/frozen %s before the crash, %s after", tok, b, after.balances[tok])
		}
	}
	next, err := p2.client.SendOrder(ctx, venue.OrderRequest{Symbol: "SPOT_BTC_USDT", Type: venue.Market, Side: venue.Buy,
		Quantity: decimal.RequireFromString("0.001")})
	if err != nil {
		t.Fatal(err)
	}
	if next.OrderID.Int64() <= last {
		t.Fatalf("order id %d handed out after the restart; %d was acknowledged before the crash", next.OrderID.Int64(), last)
	}
}
