package cli

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command line before cobra (issue 27) was the standard flag package,
// which takes -live as well as --live; pflag reads -live as the
// shorthands -l -i -v -e. Scripts written for it keep working:
// legacyFlags respells a single-dash long flag that some command has
// (-live, -seed=3, -help) as --live, with one warning line on stderr.

// legacyLong is a single-dash word of two letters or more: never a
// negative number (-100), nor one shorthand (-v, -h).
var legacyLong = regexp.MustCompile(`^-[A-Za-z][A-Za-z0-9-]+(=.*)?$`)

// negativeNumber is an argument pflag would read as shorthand flags.
var negativeNumber = regexp.MustCompile(`^-[0-9.]`)

// argMark prefixes a negative number among the arguments so pflag leaves
// it positional; keepNegativeNumbers takes it off before the command sees it.
const argMark = "\x00"

// legacyFlags respells args for pflag: -live becomes --live (warned on
// w), and a negative number that is not a flag's value (alerts add X pnl
// below -100) is marked as an argument.
func legacyFlags(root *cobra.Command, args []string, w io.Writer) []string {
	takes := flagKinds(root)
	out := make([]string, 0, len(args))
	var respelled []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		afterValueFlag := i > 0 && !strings.Contains(args[i-1], "=") && takes[strings.TrimLeft(args[i-1], "-")] && strings.HasPrefix(args[i-1], "-")
		switch {
		case afterValueFlag:
		case negativeNumber.MatchString(a):
			a = argMark + a
		case legacyLong.MatchString(a):
			name, _, _ := strings.Cut(a[1:], "=")
			if _, known := takes[name]; known {
				respelled = append(respelled, a)
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	if len(respelled) > 0 {
		fmt.Fprintf(w, "tradedeck: %s: long flags take two dashes (--%s); the single-dash spelling still works for now\n",
			strings.Join(respelled, " "), strings.TrimPrefix(respelled[0], "-"))
	}
	return out
}

// flagKinds is every long flag of the command tree, true when it takes a
// value (a flag of the same name takes one in some command).
func flagKinds(root *cobra.Command) map[string]bool {
	takes := map[string]bool{"help": false, "version": false}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		visit := func(f *pflag.Flag) { takes[f.Name] = takes[f.Name] || f.NoOptDefVal == "" }
		c.Flags().VisitAll(visit)
		c.PersistentFlags().VisitAll(visit)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return takes
}

// keepNegativeNumbers takes the mark legacyFlags put on negative numbers
// off the arguments before c checks or runs them.
func keepNegativeNumbers(c *cobra.Command) {
	unmark := func(args []string) []string {
		for i, a := range args {
			args[i] = strings.TrimPrefix(a, argMark)
		}
		return args
	}
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error { return check(cmd, unmark(args)) }
	}
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error { return run(cmd, unmark(args)) }
	}
	for _, sub := range c.Commands() {
		keepNegativeNumbers(sub)
	}
}
