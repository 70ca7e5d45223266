package serve

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAllPaste(t *testing.T, in string, oneByte bool) string {
	t.Helper()
	var r io.Reader = strings.NewReader(in)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	out, err := io.ReadAll(&boundedPaste{r: r})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Input passes unchanged, pastes included, unless a paste exceeds
// maxPaste: then it is closed at the limit and the rest dropped up to the
// client's own end marker; markers split across reads are followed.
func TestBoundedPaste(t *testing.T) {
	start, end := "\x1b[200~", "\x1b[201~"
	small := "ab\x1b[Ac" + start + "pasted\x1b[2" + end + "q\x1b[20x~"
	big := strings.Repeat("x", maxPaste+1000)
	for _, oneByte := range []bool{false, true} {
		if got := readAllPaste(t, small, oneByte); got != small {
			t.Fatalf("changed input: %q", got)
		}
		got := readAllPaste(t, "k"+start+big+end+"?", oneByte)
		want := "k" + start + big[:maxPaste+1] + end + "?"
		if got != want {
			t.Fatalf("oneByte=%v: %d bytes out, want %d (prefix %q, suffix %q)", oneByte, len(got), len(want), got[:10], got[len(got)-10:])
		}
		// A paste never closed by the client stays bounded.
		if got := readAllPaste(t, start+big+big, oneByte); len(got) != len(start)+maxPaste+1+len(end) || !bytes.HasSuffix([]byte(got), []byte(end)) {
			t.Fatalf("unclosed paste: %d bytes out", len(got))
		}
	}
}
