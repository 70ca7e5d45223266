package replay

import (
	"bytes"
	"sort"
	"strconv"

	"tradedeck/record"
	"tradedeck/venue/stream"
)

// Summary is what a recording holds, read in one pass.
type Summary struct {
	Path        string
	Header      record.Header
	First, Last int64 // receive times of the first and last stream frame (ns)
	Frames      uint64
	Private     uint64
	REST        uint64
	Events      []string         // stream events, "market: reconnecting: ..." in order
	Reconnects  int              // stream connections after the first
	Topics      map[string]int64 // frames per topic
	Malformed   uint64           // frames whose envelope does not parse
	LastBookTS  map[string]int64 // venue ts of each symbol's last @orderbookupdate
	// ChainBreaks counts @orderbookupdate frames whose prevTs is not the
	// ts of the symbol's previous one: updates the recorder never got.
	ChainBreaks map[string]int
	Truncated   *record.FormatError
	// Blocks indexes the blocks holding stream frames: where each starts
	// and the receive time of its first frame, for jumps.
	Blocks []BlockIndex
}

// BlockIndex locates one block of a recording.
type BlockIndex struct {
	Offset int64
	First  int64 // receive time of its first stream frame (ns)
}

// Symbols lists the symbols seen in topics, sorted.
func (s Summary) Symbols() []string {
	seen := map[string]bool{}
	for t := range s.Topics {
		if sym, _ := stream.SplitTopic([]byte(t)); len(sym) > 0 {
			seen[string(sym)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Summarize reads a recording through. A truncated tail (a killed
// recorder) is reported in Truncated, not as an error; any other damage is.
func Summarize(path string) (Summary, error) {
	sum := Summary{Path: path, Topics: map[string]int64{}, LastBookTS: map[string]int64{}, ChainBreaks: map[string]int{}}
	var env stream.Envelope
	connected := map[string]int{}
	hdr, tail, err := record.ScanBlocks(path, func(r record.Record, block int64) error {
		switch r.Kind {
		case record.REST:
			sum.REST++
			return nil
		case record.Event:
			text := string(r.Data)
			sum.Events = append(sum.Events, string(r.Key)+": "+text)
			if text == "live" {
				connected[string(r.Key)]++
				if connected[string(r.Key)] > 1 {
					sum.Reconnects++
				}
			}
			return nil
		case record.Private:
			sum.Private++
		}
		if sum.First == 0 {
			sum.First = r.Time
		}
		if n := len(sum.Blocks); n == 0 || sum.Blocks[n-1].Offset != block {
			sum.Blocks = append(sum.Blocks, BlockIndex{Offset: block, First: r.Time})
		}
		sum.Last = r.Time
		sum.Frames++
		if stream.ParseEnvelope(r.Data, &env) != nil {
			sum.Malformed++
			return nil
		}
		sum.Topics[string(env.Topic)]++
		if sym, kind := stream.SplitTopic(env.Topic); string(kind) == "orderbookupdate" {
			last, seen := sum.LastBookTS[string(sym)]
			if prev, ok := prevTs(env.Data); seen && ok && prev != last {
				sum.ChainBreaks[string(sym)]++
			}
			sum.LastBookTS[string(sym)] = env.TS
		}
		return nil
	})
	sum.Header, sum.Truncated = hdr, tail
	return sum, err
}

// prevTs finds the "prevTs" member of book update data.
func prevTs(data []byte) (int64, bool) {
	i := bytes.Index(data, []byte(`"prevTs":`))
	if i < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(data[i+len(`"prevTs":`):], " ")
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return n, err == nil
}
