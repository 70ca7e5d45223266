package proc

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// trimAfterStart trims the mapped binary (trimMappedBinary) at once (what
// the packages' init functions touched), when the screen has started and
// when its first minute has run whatever else runs once, until ctx ends.
func trimAfterStart(ctx context.Context) {
	trimMappedBinary()
	for _, after := range []time.Duration{5 * time.Second, 55 * time.Second} {
		select {
		case <-ctx.Done():
			return
		case <-time.After(after):
			trimMappedBinary()
		}
	}
}

// trimMappedBinary drops the pages of tradedeck's own code and read-only
// data that this process has mapped, and asks the kernel to map only the
// pages touched from now on. A page fault on a file mapping normally maps
// the 64 KB around it ("fault-around"), and start-up runs every package's
// init once: the dashboard kept ~12 MiB of its ~35 MB binary resident,
// most of it code it never runs again. The pages stay in the page cache
// (shared, free to reclaim); only the process's resident set shrinks.
// Writable mappings (the data segment) are left alone: dropping them
// would lose what the process wrote there.
func trimMappedBinary() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 00400000-00a93000 r-xp 00000000 fe:00 10732349  /path/to/binary
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe || fields[1][1] == 'w' {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			continue
		}
		madvise(uintptr(start), uintptr(end-start), syscall.MADV_RANDOM)
		madvise(uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED)
	}
}

func madvise(addr, length uintptr, advice int) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, length, uintptr(advice))
}
