package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/panes/stats"
)

// StatsKeys maps the dashboard's keymap onto the stats pane's, so the one
// keymap (and its config overrides) drives it too.
func StatsKeys(k *common.KeyMap) *stats.KeyMap {
	return &stats.KeyMap{
		NextNetwork: k.NextNetwork, PrevNetwork: k.PrevNetwork,
		NextPeriod: k.NextPeriod, PrevPeriod: k.PrevPeriod, Refresh: k.Refresh,
	}
}

// statsPage adapts the stats pane (a value model with its own cache of
// rendered lines) to common.Pane, for the full-screen ":stats" page.
type statsPage struct{ m stats.Model }

// NewStatsPage wraps a stats model as a page.
func NewStatsPage(m stats.Model) common.Pane { return &statsPage{m: m} }

func (p *statsPage) Init() tea.Cmd { return p.m.Init() }

func (p *statsPage) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	if _, ok := msg.(common.PaneMouse); ok {
		return p, nil
	}
	var cmd tea.Cmd
	p.m, cmd = p.m.Update(msg)
	return p, cmd
}

func (p *statsPage) View() string              { return p.m.View() }
func (p *statsPage) SetSize(w, h int)          { p.m.SetSize(w, h) }
func (p *statsPage) Title() string             { return p.m.Title() }
func (p *statsPage) Lines() []string           { return p.m.Lines() }
func (p *statsPage) Focus()                    { p.m.Focus() }
func (p *statsPage) Blur()                     { p.m.Blur() }
func (p *statsPage) Invalidate()               {}
func (p *statsPage) ShortHelp() []key.Binding  { return p.m.ShortHelp() }
func (p *statsPage) FullHelp() [][]key.Binding { return p.m.FullHelp() }
