package rehearse

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"tradedeck/algo/report"
	"tradedeck/record"
	"tradedeck/venue/stream"
)

// Recorded is a recording's market as the report needs it: every print
// (for the VWAP) and every best bid and ask (for the arrival price) of
// some symbols, by receive time. A host that plays a recording some other
// way (the replay dashboard's paper account) builds its report from it,
// as the headless rehearsal does.
type Recorded struct {
	Prints map[string][]report.Print
	bbos   map[string][]recordedBBO
}

type recordedBBO struct {
	at       time.Time
	bid, ask decimal.Decimal
}

// ReadRecorded reads the prints and best bids and asks of symbols.
func ReadRecorded(path string, symbols []string) (Recorded, error) {
	want := map[string]bool{}
	for _, s := range symbols {
		want[s] = true
	}
	m := Recorded{Prints: map[string][]report.Print{}, bbos: map[string][]recordedBBO{}}
	f, err := os.Open(path)
	if err != nil {
		return m, err
	}
	defer f.Close()
	rd, err := record.NewReader(f)
	if err != nil {
		return m, err
	}
	defer rd.Close()
	var env stream.Envelope
	for {
		r, err := rd.Next()
		var fe *record.FormatError
		if errors.Is(err, io.EOF) || (errors.As(err, &fe) && fe.Truncated) {
			return m, nil
		}
		if err != nil {
			return m, err
		}
		if r.Kind != record.Market || stream.ParseEnvelope(r.Data, &env) != nil {
			continue
		}
		sym, kind := stream.SplitTopic(env.Topic)
		if !want[string(sym)] {
			continue
		}
		m.add(string(sym), string(kind), time.Unix(0, r.Time), env.Data)
	}
}

func (m Recorded) add(sym, kind string, at time.Time, data []byte) {
	switch kind {
	case "trade":
		var t struct{ Price, Size decimal.Decimal }
		if json.Unmarshal(data, &t) == nil && t.Price.IsPositive() && t.Size.IsPositive() {
			m.Prints[sym] = append(m.Prints[sym], report.Print{Time: at, Price: t.Price, Qty: t.Size})
		}
	case "bbo":
		var b struct{ Bid, Ask decimal.Decimal }
		if json.Unmarshal(data, &b) == nil {
			m.bbos[sym] = append(m.bbos[sym], recordedBBO{at, b.Bid, b.Ask})
		}
	}
}

// Mid is the middle of the last best bid and ask of sym at or before at
// (the best price of one side when the other is empty; zero: none yet).
func (m Recorded) Mid(sym string, at time.Time) decimal.Decimal {
	bs := m.bbos[sym]
	i := sort.Search(len(bs), func(i int) bool { return bs[i].at.After(at) })
	if i == 0 {
		return decimal.Zero
	}
	b := bs[i-1]
	switch {
	case b.bid.IsPositive() && b.ask.IsPositive():
		return b.bid.Add(b.ask).Div(decimal.NewFromInt(2))
	case b.bid.IsPositive():
		return b.bid
	}
	return b.ask
}
