package account

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"tradedeck/panes/common"
	"tradedeck/panes/confirm"
)

// Field is one row of a Prompt: free text, or one of Choices (cycled with
// the arrow keys).
type Field struct {
	Label   string
	Choices []string // nil: free text
	Value   string   // initial value (a choice, or text)
	Hint    string
	Date    bool // YYYY-MM-DD or empty
}

// Prompt is a small modal form (filters, repay, transfer, mode, leverage).
// Enter calls Submit with the values; Submit returns the command to run
// (the prompt then closes) or a message saying what is wrong.
type Prompt struct {
	common.Common
	title  string
	fields []Field
	inputs []textinput.Model
	choice []int
	field  int // the field being edited
	err    string
	submit func(values []string) (tea.Cmd, string)
}

// NewPrompt builds a prompt.
func NewPrompt(c common.Common, title string, fields []Field, submit func([]string) (tea.Cmd, string)) *Prompt {
	p := &Prompt{Common: c, title: title, fields: fields, submit: submit,
		inputs: make([]textinput.Model, len(fields)), choice: make([]int, len(fields))}
	for i, f := range fields {
		ti := textinput.New()
		ti.Prompt = ""
		ti.SetStyles(textinput.Styles{})
		ti.SetWidth(44)
		ti.Placeholder = f.Hint
		if f.Choices == nil {
			ti.SetValue(f.Value)
			ti.CursorEnd()
		}
		for j, ch := range f.Choices {
			if ch == f.Value {
				p.choice[i] = j
			}
		}
		p.inputs[i] = ti
	}
	p.setFocus(0)
	return p
}

func (p *Prompt) setFocus(i int) {
	for j := range p.inputs {
		p.inputs[j].Blur()
	}
	p.field = (i + len(p.fields)) % len(p.fields)
	if p.fields[p.field].Choices == nil {
		p.inputs[p.field].Focus()
	}
}

// Values returns the current values.
func (p *Prompt) Values() []string {
	out := make([]string, len(p.fields))
	for i, f := range p.fields {
		if f.Choices != nil {
			out[i] = f.Choices[p.choice[i]]
		} else {
			out[i] = strings.TrimSpace(p.inputs[i].Value())
		}
	}
	return out
}

// SetSize records the screen size.
func (p *Prompt) SetSize(w, h int) { p.Common.SetSize(w, h) }

var (
	pkNext   = key.NewBinding(key.WithKeys("tab", "down"))
	pkPrev   = key.NewBinding(key.WithKeys("shift+tab", "up"))
	pkLeft   = key.NewBinding(key.WithKeys("left"))
	pkRight  = key.NewBinding(key.WithKeys("right", "space"))
	pkEnter  = key.NewBinding(key.WithKeys("enter"))
	pkCancel = key.NewBinding(key.WithKeys("esc"))
)

// Update handles keys.
func (p *Prompt) Update(msg tea.Msg) (common.Dialog, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return p, nil
	}
	f := p.fields[p.field]
	switch {
	case key.Matches(k, pkCancel):
		return p, common.Close
	case key.Matches(k, pkEnter):
		cmd, bad := p.submit(p.Values())
		if bad != "" {
			p.err = bad
			return p, nil
		}
		return p, tea.Sequence(common.Close, cmd)
	case key.Matches(k, pkNext):
		p.setFocus(p.field + 1)
	case key.Matches(k, pkPrev):
		p.setFocus(p.field - 1)
	case f.Choices != nil && key.Matches(k, pkLeft):
		p.choice[p.field] = (p.choice[p.field] + len(f.Choices) - 1) % len(f.Choices)
	case f.Choices != nil && key.Matches(k, pkRight):
		p.choice[p.field] = (p.choice[p.field] + 1) % len(f.Choices)
	case f.Choices == nil:
		var cmd tea.Cmd
		p.inputs[p.field], cmd = p.inputs[p.field].Update(k)
		p.err = ""
		return p, cmd
	}
	return p, nil
}

// View renders the prompt.
func (p *Prompt) View() string {
	t := p.Theme
	w := 72
	var body []string
	for i, f := range p.fields {
		marker := "  "
		if i == p.field {
			marker = t.Accent + "> " + t.Text
		}
		val := p.inputs[i].View()
		if f.Choices != nil {
			var parts []string
			for j, ch := range f.Choices {
				label := ch
				if label == "" {
					label = "all"
				}
				if j == p.choice[i] {
					parts = append(parts, t.Reverse+label+t.Text)
				} else {
					parts = append(parts, t.Muted+label+t.Text)
				}
			}
			val = strings.Join(parts, " ")
			if len(strings.Join(f.Choices, " ")) > w-20 {
				// Too long to list: the chosen one, with where it is.
				val = fmt.Sprintf("◂ %s ▸ %s(%d/%d)%s", f.Choices[p.choice[i]], t.Muted, p.choice[i]+1, len(f.Choices), t.Text)
			}
		}
		body = append(body, marker+common.Left(f.Label, 14)+val)
	}
	body = append(body, "")
	if p.err != "" {
		body = append(body, t.Error+p.err+t.Text)
	}
	body = append(body, t.Muted+"enter ok · tab/↑↓ field · ←/→ choose · esc cancel"+t.Text)
	return confirm.Frame(t, p.title, body, w, t.BorderFocus)
}
