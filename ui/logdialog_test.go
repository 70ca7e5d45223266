package ui

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/panes/common"
	"tradedeck/trade"
	"tradedeck/venue"
)

// statusLine is the status bar's text.
func statusLine(m *Model) string {
	lines := strings.Split(screen(m), "\n")
	return lines[len(lines)-2]
}

// :log shows every notice in full with its time, newest first, though
// the status bar cut it (issue 20).
func TestNoticeLogKeepsFullTexts(t *testing.T) {
	m := newTestModel(t, 100, 30, false)
	long := "-1006 RESOURCE_NOT_FOUND: data not found for this request; the order may have been filled or cancelled before the cancel arrived, check History"
	press(m, "?", "esc") // an ordinary dialog first: the log is one more
	exec(m, send(m, common.NoticeMsg{Level: common.NoticeInfo, Text: "first notice"}))
	exec(m, send(m, common.NoticeMsg{Level: common.NoticeError, Text: long}))
	if strings.Contains(statusLine(m), "check History") {
		t.Fatalf("the status bar was expected to cut the long notice: %q", statusLine(m))
	}
	runCommand(m, "log")
	sc := strings.Join(strings.Fields(screen(m)), " ")
	if !strings.Contains(sc, "Notices, newest first (2)") || !strings.Contains(sc, "check History") ||
		!strings.Contains(sc, "12:34:56") {
		t.Fatalf("the log lacks the full notice or its time:\n%s", screen(m))
	}
	if strings.Index(sc, "RESOURCE_NOT_FOUND") > strings.Index(sc, "first notice") {
		t.Fatal("the log is not newest first")
	}
	press(m, "esc")
	if m.DialogOpen() {
		t.Fatal("esc did not close the log")
	}
}

// The REST answer "order sent" arrives after the private stream's
// "accepted (#id)": it goes to the log, the status bar keeps the stream's
// newer state. Arriving first, it shows until the stream's notice
// replaces it.
func TestOrderSentDoesNotReplaceAccepted(t *testing.T) {
	m := newTestModel(t, 160, 40, false)
	tr := NewTrader(TraderOptions{})
	ack := func(id int64) {
		o := feed.Order{OrderID: id, Symbol: "PERP_BTC_USDT"}
		exec(m, send(m, &feed.Update{Events: []feed.Event{{Kind: feed.EventOrderAck, Order: &o,
			Text: "PERP_BTC_USDT BUY LIMIT 0.01 @ 654300 accepted (#" + itoa(int(id)) + ")"}}}))
	}
	sent := func(id int64) {
		res := OrderResultMsg{Order: trade.Order{Symbol: "PERP_BTC_USDT", Side: trade.Buy, Type: trade.Limit,
			Price: decimal.NewFromInt(654300), Quantity: decimal.RequireFromString("0.01")}, Ack: venue.OrderAck{OrderID: venue.Int(id)}}
		cmd, _ := tr.Update(m.c, res)
		exec(m, send(m, cmd()))
	}
	ack(41)
	sent(41)
	if s := statusLine(m); !strings.Contains(s, "accepted (#41)") {
		t.Fatalf("order sent replaced accepted: %q", s)
	}
	if es := m.log.entries(); len(es) != 2 || !strings.HasPrefix(es[0].text, "order sent") {
		t.Fatalf("log %+v", es)
	}
	sent(42)
	if s := statusLine(m); !strings.Contains(s, "order sent") {
		t.Fatalf("order sent first not shown: %q", s)
	}
	ack(42)
	if s := statusLine(m); !strings.Contains(s, "accepted (#42)") {
		t.Fatalf("accepted did not follow: %q", s)
	}
}
