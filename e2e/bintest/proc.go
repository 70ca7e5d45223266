package bintest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory reads a process's resident memory and its peak so far in KiB
// (VmRSS and VmHWM of /proc/PID/status): what top shows a user.
func Memory(pid int) (rss, peak int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb
		case "VmHWM:":
			peak = kb
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return rss, peak, nil
}
