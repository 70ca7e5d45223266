package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ticksPerSec is the kernel's USER_HZ, the unit of /proc/PID/stat's times.
const ticksPerSec = 100

// cpuTicks is utime+stime of a process: every thread's, the ended ones'
// included.
func cpuTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	return ut + st, nil
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// median is every figure's median over the rounds, each on its own.
func median(rs []result) result {
	pick := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return medianOf(v)
	}
	return result{
		cpu:      pick(func(r result) float64 { return r.cpu }),
		frames:   pick(func(r result) float64 { return r.frames }),
		bytes:    pick(func(r result) float64 { return r.bytes }),
		rssKiB:   int64(pick(func(r result) float64 { return float64(r.rssKiB) })),
		peakKiB:  int64(pick(func(r result) float64 { return float64(r.peakKiB) })),
		msgs:     pick(func(r result) float64 { return r.msgs }),
		usPerMsg: pick(func(r result) float64 { return r.usPerMsg }),
	}
}

type row struct {
	w workload
	r result
}

// table is the markdown table of the medians, with the machine's load.
func table(rows []row, rounds int, window time.Duration) string {
	var b strings.Builder
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "medians of %d rounds, %v windows, %d CPUs, load average %s\n\n", rounds, window,
		runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	b.WriteString("| workload | CPU % of one core | frames/s | bytes/s | RSS MiB (peak) | msgs/s | CPU µs/msg |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		msgs, per := "", ""
		if r.r.msgs > 0 {
			msgs, per = fmt.Sprintf("%.0f", r.r.msgs), fmt.Sprintf("%.1f", r.r.usPerMsg)
		}
		frames, bytes := "", ""
		if r.w.watch == nil {
			frames, bytes = fmt.Sprintf("%.1f", r.r.frames), fmt.Sprintf("%.0f", r.r.bytes)
		}
		fmt.Fprintf(&b, "| %s | %.2f | %s | %s | %.1f (%.1f) | %s | %s |\n", r.w.what, r.r.cpu, frames, bytes,
			float64(r.r.rssKiB)/1024, float64(r.r.peakKiB)/1024, msgs, per)
	}
	return b.String()
}
