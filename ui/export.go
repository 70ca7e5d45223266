package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"tradedeck/export"
	"tradedeck/feed"
	"tradedeck/panes/accountpane"
	"tradedeck/panes/common"
)

// `:export [FILE]` writes the account tab in view (positions, open
// orders, history, fills or balances, as the dashboard holds them) to
// FILE, by default tradedeck-TAB-YYYYMMDD-HHMMSS.csv in the working
// directory; .json and .jsonl names choose those formats.

// Options.ExportDir is the directory `:export` writes relative names
// into. Without it `:export` is refused: an SSH viewer must not write
// files on the server.

type exportHook struct{}

func (exportHook) Init(*Model) tea.Cmd                         { return nil }
func (exportHook) Update(*Model, tea.Msg) tea.Cmd              { return nil }
func (exportHook) Help(*Model) []key.Binding                   { return nil }
func (exportHook) Key(*Model, tea.KeyPressMsg) (bool, tea.Cmd) { return false, nil }

func (exportHook) Command(m *Model, name string, args []string) (bool, tea.Cmd) {
	if name != "export" {
		return false, nil
	}
	dir := m.opts.ExportDir
	if dir == "" {
		return true, common.Notify(common.NoticeWarn, "export: not available in this session (tradedeck export writes files)")
	}
	table, ok := accountTable(m.tables.Tab(), m.store.Account)
	if !ok {
		return true, common.Notify(common.NoticeWarn, "export: choose Positions, Open orders, History, Fills or Balances in the account pane first")
	}
	path := strings.Join(args, " ")
	if path == "" {
		path = fmt.Sprintf("tradedeck-%s-%s.csv", table.Name, time.Now().UTC().Format("20060102-150405"))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return true, func() tea.Msg {
		abs, err := writeAccountTable(path, table)
		if err != nil {
			return common.NoticeMsg{Level: common.NoticeError, Text: "export: " + err.Error()}
		}
		return common.NoticeMsg{Level: common.NoticeInfo, Text: fmt.Sprintf("exported %d %s to %s", len(table.Rows), table.Name, abs)}
	}
}

// accountTable is the table of the account pane's tab t.
func accountTable(t accountpane.Tab, a *feed.Account) (export.AccountTable, bool) {
	if a == nil {
		a = &feed.Account{}
	}
	switch t {
	case accountpane.Positions:
		return export.PositionsTable(a.Positions), true
	case accountpane.Orders:
		return export.OrdersTable("open-orders", a.Open), true
	case accountpane.History:
		return export.OrdersTable("history", a.History), true
	case accountpane.Fills:
		return export.FillsTable(a.Fills), true
	case accountpane.Balances:
		return export.BalancesTable(a.Balances), true
	}
	return export.AccountTable{}, false
}

// writeAccountTable writes the whole file or nothing (a temporary file
// renamed into place) and returns its absolute path.
func writeAccountTable(path string, t export.AccountTable) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	f := export.CSV
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".json":
		f = export.JSON
	case ".jsonl", ".ndjson":
		f = export.JSONL
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	w, err := export.NewWriter(f, tmp)
	if err == nil {
		err = t.Write(w)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return abs, os.Rename(tmp.Name(), abs)
}
