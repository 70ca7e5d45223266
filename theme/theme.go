// Package theme holds the dashboard's palettes (dark, light, high contrast
// and a colourless one for NO_COLOR) and its glyph sets (Unicode and ASCII).
//
// Styles are pre-rendered SGR prefixes, not lipgloss styles: panes write
// prefix + text + Reset into a buffer, so painting a cell costs no
// allocation and no style resolution. The Bubble Tea renderer downsamples
// the true colours to whatever the terminal supports.
package theme

import (
	"fmt"
	"image/color"
	"os"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Reset ends any style.
const Reset = ansi.ResetStyle

// Palette is the colours of a theme; nil means the terminal default.
type Palette struct {
	Fg, Muted, Accent, Border, BorderFocus color.Color
	Buy, Sell, Warn, Error, Live, Sim      color.Color
	BuyBar, SellBar, Flash, Selected, Bar  color.Color // backgrounds
	OnBar                                  color.Color // text on Bar
}

// Theme is a ready-to-use set of SGR prefixes plus the glyphs to draw with.
type Theme struct {
	Name string

	Text, Muted, Bold, Accent, Title, TitleFocus string
	Border, BorderFocus                          string
	Buy, Sell, BuyBold, SellBold                 string
	BuyBar, SellBar                              string // depth bar backgrounds
	Flash                                        string // a level that just changed
	Own                                          string // own order marker
	Warn, Error                                  string
	Live, Sim, Paper                             string // venue badges
	Selected                                     string // selected table row
	StatusBar, StatusKey                         string
	StatusOK, StatusWarn, StatusErr              string // on the status bar
	Reverse                                      string

	Glyphs Glyphs
	// Palette is the colours the prefixes above are made of (all nil in
	// mono), for components drawn by libraries that take colours
	// (lipgloss styles of the swap statistics' charts).
	Palette Palette
}

// Glyphs are the characters used to draw boxes, bars and candles.
type Glyphs struct {
	ASCII                    bool
	H, V, TL, TR, BL, BR     string
	BarFull                  string
	BarEighths               []string // 0..8 eighths of a cell, left to right
	VolEighths               []string // 0..8 eighths of a cell, bottom to top
	Upper, Lower, Full, Wick string   // candle halves
	Up, Down, Dot, Ellipsis  string
	Left                     string // points left (the last price on an axis)
	Sparks                   []string
	AxisTick, AxisCorner     string // a chart's y axis: a labelled tick, the corner with the x axis
	Sep                      string // between items of a line
}

var unicodeGlyphs = Glyphs{
	H: "─", V: "│", TL: "╭", TR: "╮", BL: "╰", BR: "╯",
	BarFull:    "█",
	BarEighths: []string{" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"},
	VolEighths: []string{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
	Upper:      "▀", Lower: "▄", Full: "█", Wick: "│",
	Up: "▲", Down: "▼", Dot: "•", Ellipsis: "…", Left: "◀",
	AxisTick: "┤", AxisCorner: "└", Sep: "·",
}

var asciiGlyphs = Glyphs{
	ASCII: true,
	H:     "-", V: "|", TL: "+", TR: "+", BL: "+", BR: "+",
	BarFull:    "#",
	BarEighths: []string{" ", " ", " ", " ", "#", "#", "#", "#", "#"},
	VolEighths: []string{" ", ".", ".", ":", ":", "|", "|", "#", "#"},
	Upper:      "#", Lower: "#", Full: "#", Wick: "|",
	Up: "^", Down: "v", Dot: "*", Ellipsis: "~", Left: "<",
	AxisTick: "+", AxisCorner: "+", Sep: "-",
}

func hex(v uint32) color.Color {
	return ansi.RGBColor{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v)}
}

var palettes = map[string]Palette{
	"dark": {
		Fg: hex(0xd0d4dc), Muted: hex(0x6c7386), Accent: hex(0x7aa2f7),
		Border: hex(0x3b4261), BorderFocus: hex(0x7aa2f7),
		Buy: hex(0x3fd08a), Sell: hex(0xf0566a), Warn: hex(0xe0af68), Error: hex(0xff5f5f),
		Live: hex(0xff3030), Sim: hex(0x2ac3de),
		BuyBar: hex(0x123524), SellBar: hex(0x3d151c), Flash: hex(0x4a4a20),
		Selected: hex(0x283457), Bar: hex(0x1f2335), OnBar: hex(0xc0caf5),
	},
	"light": {
		Fg: hex(0x24292f), Muted: hex(0x6e7781), Accent: hex(0x0550ae),
		Border: hex(0xb6bcc6), BorderFocus: hex(0x0550ae),
		Buy: hex(0x116329), Sell: hex(0xb3261e), Warn: hex(0x9a6700), Error: hex(0xcf222e),
		Live: hex(0xd00000), Sim: hex(0x0969da),
		BuyBar: hex(0xd2f4dc), SellBar: hex(0xfbd9d6), Flash: hex(0xfff3b0),
		Selected: hex(0xddeeff), Bar: hex(0xe8ecf0), OnBar: hex(0x24292f),
	},
	"contrast": {
		Fg: hex(0xffffff), Muted: hex(0xc0c0c0), Accent: hex(0x00ffff),
		Border: hex(0xc0c0c0), BorderFocus: hex(0xffff00),
		Buy: hex(0x00ff00), Sell: hex(0xff4040), Warn: hex(0xffff00), Error: hex(0xff0000),
		Live: hex(0xff0000), Sim: hex(0x00ffff),
		BuyBar: hex(0x004000), SellBar: hex(0x500000), Flash: hex(0x606000),
		Selected: hex(0x0000a0), Bar: hex(0x000000), OnBar: hex(0xffffff),
	},
}

// Names lists the selectable themes.
func Names() []string {
	n := make([]string, 0, len(palettes)+1)
	for k := range palettes {
		n = append(n, k)
	}
	n = append(n, "mono")
	sort.Strings(n)
	return n
}

func fg(c color.Color, attrs ...ansi.Attr) string {
	s := ansi.NewStyle(attrs...)
	if c != nil {
		s = s.ForegroundColor(c)
	}
	return s.String()
}

func fgbg(f, b color.Color, attrs ...ansi.Attr) string {
	s := ansi.NewStyle(attrs...)
	if f != nil {
		s = s.ForegroundColor(f)
	}
	if b != nil {
		s = s.BackgroundColor(b)
	}
	return s.String()
}

const (
	attrBold      = 1
	attrFaint     = 2
	attrUnderline = 4
	attrReverse   = 7
)

// New builds a theme by name ("dark", "light", "contrast", "mono"). mono
// uses no colour at all, only bold/faint/reverse/underline: the choice for
// NO_COLOR. ascii selects the ASCII glyph set.
func New(name string, ascii bool) (*Theme, error) {
	g := unicodeGlyphs
	if ascii {
		g = asciiGlyphs
	}
	if name == "mono" {
		return &Theme{
			Name: "mono", Text: Reset, Muted: fg(nil, attrFaint), Bold: fg(nil, attrBold),
			Accent: fg(nil, attrBold), Title: fg(nil), TitleFocus: fg(nil, attrBold, attrReverse),
			Border: fg(nil, attrFaint), BorderFocus: fg(nil, attrBold),
			Buy: fg(nil, attrBold), Sell: fg(nil), BuyBold: fg(nil, attrBold, attrUnderline), SellBold: fg(nil, attrUnderline),
			BuyBar: fg(nil, attrReverse), SellBar: fg(nil, attrReverse, attrFaint), Flash: fg(nil, attrUnderline),
			Own: fg(nil, attrBold), Warn: fg(nil, attrBold), Error: fg(nil, attrBold, attrReverse),
			Live: fg(nil, attrBold, attrReverse), Sim: fg(nil, attrBold), Paper: fg(nil, attrBold, attrUnderline),
			Selected: fg(nil, attrReverse), StatusBar: fg(nil, attrReverse), StatusKey: fg(nil, attrBold, attrReverse),
			StatusOK: fg(nil, attrReverse), StatusWarn: fg(nil, attrBold, attrReverse), StatusErr: fg(nil, attrBold, attrUnderline, attrReverse),
			Reverse: fg(nil, attrReverse), Glyphs: g,
		}, nil
	}
	p, ok := palettes[name]
	if !ok {
		return nil, fmt.Errorf("unknown theme %q (have %s)", name, strings.Join(Names(), ", "))
	}
	return &Theme{
		Name: name, Text: fg(p.Fg), Muted: fg(p.Muted), Bold: fg(p.Fg, attrBold),
		Accent: fg(p.Accent), Title: fg(p.Muted), TitleFocus: fg(p.Accent, attrBold),
		Border: fg(p.Border), BorderFocus: fg(p.BorderFocus),
		Buy: fg(p.Buy), Sell: fg(p.Sell), BuyBold: fg(p.Buy, attrBold), SellBold: fg(p.Sell, attrBold),
		BuyBar: fgbg(p.Buy, p.BuyBar), SellBar: fgbg(p.Sell, p.SellBar), Flash: fgbg(p.Fg, p.Flash, attrBold),
		Own: fg(p.Warn, attrBold), Warn: fg(p.Warn), Error: fg(p.Error, attrBold),
		Live: fgbg(hex(0xffffff), p.Live, attrBold), Sim: fgbg(hex(0x000000), p.Sim, attrBold), Paper: fgbg(hex(0x000000), p.Warn, attrBold),
		Selected: fgbg(p.Fg, p.Selected), StatusBar: fgbg(p.OnBar, p.Bar), StatusKey: fgbg(p.Accent, p.Bar, attrBold),
		StatusOK: fgbg(p.Buy, p.Bar), StatusWarn: fgbg(p.Warn, p.Bar), StatusErr: fgbg(p.Error, p.Bar, attrBold),
		Reverse: fg(nil, attrReverse), Glyphs: g, Palette: p,
	}, nil
}

// Detect picks the theme and glyphs from the environment when the user did
// not: NO_COLOR selects mono; ASCII glyphs when the locale is not UTF-8 or
// the terminal is a plain console ("linux", "vt100", "dumb").
func Detect(name string, forceASCII bool, getenv func(string) string) (*Theme, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("NO_COLOR") != "" {
		name = "mono"
	}
	if name == "" {
		name = "dark"
	}
	return New(name, forceASCII || !unicodeLikely(getenv))
}

func unicodeLikely(getenv func(string) string) bool {
	switch getenv("TERM") {
	case "linux", "vt100", "vt220", "dumb":
		return false
	}
	loc := getenv("LC_ALL")
	if loc == "" {
		loc = getenv("LC_CTYPE")
	}
	if loc == "" {
		loc = getenv("LANG")
	}
	if loc == "" || loc == "C" || loc == "POSIX" {
		// No locale at all is common in containers and tmux; modern
		// terminals are UTF-8 anyway, so only an explicit non-UTF-8 locale
		// switches to ASCII.
		return loc == ""
	}
	l := strings.ToLower(loc)
	return strings.Contains(l, "utf-8") || strings.Contains(l, "utf8")
}
