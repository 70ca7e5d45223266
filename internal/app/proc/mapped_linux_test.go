package proc_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"tradedeck/internal/app/proc"
)

// rssFileKB is this process's resident file-backed memory (its binary:
// the test binary is static).
func rssFileKB(t *testing.T) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// Trimming drops most of the binary's resident pages, and the process
// runs on: what it touches next is mapped again from the page cache.
func TestTrimMappedBinaryShrinksTheResidentBinary(t *testing.T) {
	startUp(t)
	before := rssFileKB(t)
	proc.TrimMappedBinary()
	after := rssFileKB(t)
	t.Logf("resident binary: %d kB before, %d kB after", before, after)
	if after*2 > before {
		t.Fatalf("resident binary %d kB -> %d kB: not even halved", before, after)
	}
	// The code still runs (pages fault back in), data written before the
	// trim is intact (the writable mappings were left alone).
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Fatalf("after the trim: %q", got)
	}
	if len(writtenAtInit) == 0 || writtenAtInit["serve"] == nil {
		t.Fatalf("the map written at init is gone: %d", len(writtenAtInit))
	}
}

// writtenAtInit is data the process wrote at start-up (as the commands'
// tables are), which the trim must leave intact.
var writtenAtInit = map[string]func() error{}

func init() { writtenAtInit["serve"] = func() error { return nil } }
