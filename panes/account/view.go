package account

import (
	"fmt"
	"strings"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
	"tradedeck/theme"
)

// View renders the screen. It always fills the whole screen, whatever the
// tab holds (no rows, an error, a short list): a screen that shrank would
// show the dashboard around it while the keys still come here.
func (m *Model) View() string {
	t := m.Theme
	w, h := max(m.Width-2, 60), max(m.Height-2, 16)
	s := m.secs[m.tab]
	top := []string{m.tabBar(w - 2), ""}
	switch {
	case s.loading && !s.loaded:
		top = append(top, t.Muted+"loading…"+t.Text)
	case s.err != "":
		top = append(top, t.Error+s.err+t.Text)
	case s.loaded && len(s.rows) == 0:
		top = append(top, t.Muted+"no rows"+t.Text)
	}
	bottom := m.bottom(w - 2)
	tableH := h - len(top) - len(s.detail) - len(bottom)
	if len(s.header) > 0 && len(s.rows) > 0 {
		top = append(top, table(t, s.header, s.rows, s.cursor, w-2, max(tableH, 2), m.tab != TabInfo)...)
	}
	top = append(top, s.detail...)
	for len(top)+len(bottom) < h {
		top = append(top, "")
	}
	return confirm.Frame(t, m.title(), append(top, bottom...), w, t.BorderFocus)
}

func (m *Model) title() string {
	if m.info == nil {
		return "Account"
	}
	a := m.info.Application
	title := fmt.Sprintf("Account %s (%s) · %s · margin rate %s", a.Alias, a.Account, a.AccountMode, m.info.MarginRate)
	if m.isMain > 0 {
		title += " · main account"
	} else if m.isMain < 0 {
		title += " · subaccount"
	}
	return title
}

// tabBar names the tabs a subaccount may open, the active one reversed.
// When they do not all fit it shows a run around the active one, with a
// marker where tabs are left out: the tab shown is always named.
func (m *Model) tabBar(w int) string {
	t := m.Theme
	var tabs []Tab
	var widths []int
	active := 0
	for i := Tab(0); i < nTabs; i++ {
		if i.mainOnly() && m.isMain < 0 {
			continue
		}
		if i == m.tab {
			active = len(tabs)
		}
		tabs = append(tabs, i)
		widths = append(widths, len(tabLabel(i)))
	}
	first, last := common.TabRun(widths, active, w)
	var bar strings.Builder
	if first > 0 {
		bar.WriteString(t.Muted + t.Glyphs.Ellipsis + t.Text)
	}
	for _, i := range tabs[first : last+1] {
		if i == m.tab { // reverse has to be reset: a colour alone leaves it on for the rest of the bar
			bar.WriteString(t.Reverse + tabLabel(i) + theme.Reset + t.Text)
			continue
		}
		bar.WriteString(t.Muted + tabLabel(i) + t.Text)
	}
	if last < len(tabs)-1 {
		bar.WriteString(t.Muted + t.Glyphs.Ellipsis + t.Text)
	}
	return bar.String()
}

// tabLabel is a tab's label in the bar: its digit when it has one.
func tabLabel(i Tab) string {
	if i >= 9 {
		return " " + i.String() + " "
	}
	return fmt.Sprintf(" %d %s ", int(i)+1, i)
}

// bottom is what stays under the table: the page and filters, the status
// and the footer with every key it names (on two lines when narrow).
func (m *Model) bottom(w int) []string {
	t := m.Theme
	s := m.secs[m.tab]
	out := []string{""}
	var info []string
	if s.paged {
		p := fmt.Sprintf("page %d", s.page)
		if s.meta.RecordsPerPage > 0 {
			p += fmt.Sprintf(" · %d per page", s.meta.RecordsPerPage)
		}
		if s.meta.Total != nil {
			p += fmt.Sprintf(" · %d total", int64(*s.meta.Total))
		}
		if s.hasNext {
			p += " · ] next"
		}
		if s.page > 1 {
			p += " · [ previous"
		}
		info = append(info, p)
	}
	if fs := activeFilters(s.filters); fs != "" {
		info = append(info, "filters: "+fs)
	}
	if s.loaded && !s.at.IsZero() { // a reopened screen may show what it fetched before
		info = append(info, "fetched "+s.at.UTC().Format("15:04:05")+" UTC")
	}
	if len(info) > 0 {
		out = append(out, t.Muted+strings.Join(info, " · ")+t.Text)
	}
	if m.status != "" {
		out = append(out, t.Warn+m.status+t.Text)
	}
	for _, l := range common.Pack(m.footer(), " · ", w) {
		out = append(out, t.Muted+l+t.Text)
	}
	return out
}

func activeFilters(fs []Field) string {
	var parts []string
	for _, f := range fs {
		if f.Value != "" {
			parts = append(parts, f.Label+"="+f.Value)
		}
	}
	return strings.Join(parts, " ")
}

func (m *Model) footer() []string {
	parts := []string{"tab/1-9 section"}
	s := m.secs[m.tab]
	if m.tab != TabInfo && len(s.rows) > 1 { // Info draws no cursor; one row has nowhere to go
		parts = append(parts, "↑↓ row")
	}
	switch { // only the page keys that have a page to go to
	case s.paged && s.hasNext && s.page > 1:
		parts = append(parts, "[ ] page")
	case s.paged && s.hasNext:
		parts = append(parts, "] next page")
	case s.paged && s.page > 1:
		parts = append(parts, "[ previous page")
	}
	if s.filters != nil {
		parts = append(parts, "f filters")
	}
	if len(s.keys) > 0 { // enter acts on the cursor's row
		switch m.tab {
		case TabDeposit:
			parts = append(parts, "enter deposit address")
		case TabSubaccounts, TabSubAssets:
			parts = append(parts, "enter detail")
		}
	}
	parts = append(parts, "r reload")
	if !m.opts.ReadOnly {
		switch m.tab {
		case TabInfo:
			parts = append(parts, "m mode", "l leverage")
		case TabInterest, TabInterestHistory:
			parts = append(parts, "p repay")
		case TabTransfers, TabSubaccounts, TabSubAssets:
			parts = append(parts, "t transfer")
		}
	}
	return append(parts, "esc close")
}
