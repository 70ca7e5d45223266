// Package cmdtest runs Bubble Tea commands in tests: it executes a command
// and every command nested in a Batch or Sequence, and returns the leaf
// messages in order. Commands that block (timers) must not be passed.
package cmdtest

import (
	"reflect"

	tea "charm.land/bubbletea/v2"
)

// Run executes cmd and its nested batches and sequences.
func Run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if msg == nil {
		return nil
	}
	// tea.BatchMsg is exported, the sequence message is not: both are
	// slices of tea.Cmd.
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
		var out []tea.Msg
		for i := 0; i < v.Len(); i++ {
			c, _ := v.Index(i).Interface().(tea.Cmd)
			out = append(out, Run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// Find returns the first message of type T among msgs.
func Find[T any](msgs []tea.Msg) (T, bool) {
	for _, m := range msgs {
		if t, ok := m.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}
