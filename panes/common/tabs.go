package common

// TabRun chooses the tab labels a bar of w cells draws: all of them when
// they fit (a cell before the first and one between each), else the
// longest run of whole labels around the active one, starting as far left
// as the active tab allows, with a cell each side kept for a marker that
// says labels are left out. The active tab is always in the run.
func TabRun(widths []int, active, w int) (first, last int) {
	span := func(a, b int) int {
		n := 2 // a marker or space each side
		for i := a; i <= b; i++ {
			n += widths[i] + 1
		}
		return n - 1
	}
	n := len(widths)
	if n == 0 {
		return 0, -1
	}
	if span(0, n-1) <= w+1 {
		return 0, n - 1
	}
	active = max(0, min(active, n-1))
	first, last = active, active
	for first > 0 && span(first-1, last) <= w {
		first--
	}
	for last < n-1 && span(first, last+1) <= w {
		last++
	}
	return first, last
}
