package testkit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestSyncBufferKeepsEveryConcurrentWrite(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				fmt.Fprintf(&b, "w%d\n", i)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	out := b.String()
	for i := range 8 {
		if n := strings.Count(out, fmt.Sprintf("w%d\n", i)); n != 50 {
			t.Fatalf("writer %d: %d lines, want 50", i, n)
		}
	}
}
