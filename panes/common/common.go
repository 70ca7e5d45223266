// Package common is what every dashboard component shares: the Common
// struct embedded in each pane (size, theme, keys, flags), the Component,
// Pane and Dialog interfaces, the messages that open dialogs and show
// notices, and the Store of the latest feed snapshots.
//
// It is the integration point for the helpers that add panes and dialogs
// (trading, stats): see docs/ui.md.
package common

import (
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/shopspring/decimal"

	"tradedeck/feed"
	"tradedeck/theme"
)

// Common is embedded in every component, soft-serve style.
type Common struct {
	Width, Height int // the component's inner size (inside its border)
	Theme         *theme.Theme
	Keys          *KeyMap
	ASCII         bool
	ReadOnly      bool             // no trading actions (no keys, --read-only, SSH viewer)
	Store         *Store           // latest snapshots, shared by all components
	Now           func() time.Time // the clock; fixed in tests so goldens are stable
	// Pace is the shortest time between two redraws of the panes whose
	// rows all move with the market, the trades tape and the book (0:
	// every frame): on an SSH screen they are most of the bytes, so
	// their changes are batched (Pacer).
	Pace time.Duration
}

// SetSize records the component's size.
func (c *Common) SetSize(w, h int) { c.Width, c.Height = w, h }

// Clock returns the current time from Now (time.Now when unset).
func (c *Common) Clock() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

// Component is a Bubble Tea model with a size and key help.
type Component interface {
	Init() tea.Cmd
	Update(tea.Msg) (Component, tea.Cmd)
	View() string
	SetSize(w, h int)
	help.KeyMap
}

// Pane is a component laid out in the dashboard's grid. Lines returns its
// content as exactly Height lines of exactly Width cells each (styled,
// padded), cached between frames: the root joins them without measuring.
type Pane interface {
	Component
	Title() string
	Lines() []string
	Focus()
	Blur()
	Invalidate() // drop the cache (theme switched)
}

// Dialog is a modal on top of the screen. The top dialog of the stack gets
// every key; other messages (feed updates, results of its commands) reach
// it too. It closes itself by returning a command that yields
// CloseDialogMsg.
type Dialog interface {
	Update(tea.Msg) (Dialog, tea.Cmd)
	View() string
	SetSize(w, h int) // the whole screen's size; the dialog picks its own
}

// OpenDialogMsg pushes a dialog on the stack.
type OpenDialogMsg struct{ Dialog Dialog }

// CloseDialogMsg pops the top dialog.
type CloseDialogMsg struct{}

// Open returns a command that opens d.
func Open(d Dialog) tea.Cmd { return func() tea.Msg { return OpenDialogMsg{Dialog: d} } }

// Close returns a command that closes the top dialog.
func Close() tea.Msg { return CloseDialogMsg{} }

// NoticeLevel ranks a notice.
type NoticeLevel uint8

const (
	NoticeInfo NoticeLevel = iota
	NoticeSuccess
	NoticeWarn
	NoticeError
)

// NoticeMsg shows Text for a few seconds in the status bar, without
// blocking anything.
type NoticeMsg struct {
	Level NoticeLevel
	Text  string
	// Order is the venue order id the notice is about (0: none). A REST
	// answer about an order the private stream already reported goes to
	// the notice log only: it must not replace the stream's newer state.
	Order int64
}

// Notify returns a command that shows a notice.
func Notify(level NoticeLevel, text string) tea.Cmd {
	return func() tea.Msg { return NoticeMsg{Level: level, Text: text} }
}

// UsePriceMsg is sent when the user clicks (or selects) a book level: the
// order form takes the price. Side is the side of the book the level is on.
type UsePriceMsg struct {
	Symbol string
	Side   feed.Side
	Price  decimal.Decimal
}

// FeedMsg carries one feed.Update to the components, after the root has
// applied it to the Store.
type FeedMsg struct{ Update *feed.Update }

// ShowPageMsg asks the root to show a full-screen page by name ("stats",
// "account", ...; "" is the dashboard grid).
type ShowPageMsg struct{ Name string }

// SymbolMsg announces to the panes that the focused symbol changed.
type SymbolMsg struct{ Symbol string }

// IntervalMsg announces to the panes that the candle interval changed.
type IntervalMsg struct{ Interval string }

// SetSymbolMsg asks the root to focus another symbol (it answers with
// SymbolMsg to the panes).
type SetSymbolMsg struct{ Symbol string }

// SetIntervalMsg asks the root to switch the candle interval (it answers
// with IntervalMsg).
type SetIntervalMsg struct{ Interval string }
