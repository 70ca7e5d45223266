// Package cli is tradedeck's command line: one file per command, each a
// cobra command whose flags (pflag) fill the options of internal/app,
// which runs the process. main.go lists the commands; Main runs them
// through fang (styled help and errors, --version, completions, man page).
package cli

import (
	"context"

	"fmt"
	"io"
	"os"
	"runtime/debug"

	"charm.land/fang/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"tradedeck/panes/common"
)

// Env is what every command is built with: the dashboard's default key
// bindings (the root package's keymap.go) and where it writes.
type Env struct {
	Keys           func() *common.KeyMap
	Stdout, Stderr io.Writer
}

// Command builds one command. Adding a command to tradedeck is one file
// here defining one, and its line in main.go.
type Command func(Env) *cobra.Command

// Main runs the command line args (os.Args[1:]) and returns the exit
// status: root is the command run when no other is named (the
// dashboard), commands are its subcommands.
func Main(ctx context.Context, env Env, args []string, root Command, commands ...Command) int {
	if env.Stdout == nil {
		env.Stdout = os.Stdout
	}
	if env.Stderr == nil {
		env.Stderr = os.Stderr
	}
	cmd := New(env, root, commands...)
	args = legacyFlags(cmd, args, env.Stderr)
	cmd.SetArgs(args)
	version, commit := buildVersion()
	err := fang.Execute(ctx, cmd, fang.WithVersion(version), fang.WithCommit(commit), fang.WithErrorHandler(errorHandler))
	if err != nil {
		return 1
	}
	return 0
}

// New is the command tree: root with commands under it.
func New(env Env, root Command, commands ...Command) *cobra.Command {
	cmd := root(env)
	cmd.SetOut(env.Stdout)
	cmd.SetErr(env.Stderr)
	for _, c := range commands {
		cmd.AddCommand(c(env))
	}
	keepNegativeNumbers(cmd)
	cmd.SetGlobalNormalizationFunc(oldNames)
	return cmd
}

// oldNames are the long names the flag package gave the one-letter
// flags that now have a long name of their own (--v, --q).
func oldNames(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	switch name {
	case "v":
		return "verbose"
	case "q":
		return "quiet"
	}
	return pflag.NormalizedName(name)
}

// errorHandler is fang's styled error on a terminal; in a pipe or a log
// the one line scripts read: "tradedeck: ...".
func errorHandler(w io.Writer, styles fang.Styles, err error) {
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(f.Fd()) {
		fang.DefaultErrorHandler(w, styles, err)
		return
	}
	fmt.Fprintln(w, "tradedeck:", err)
}

// buildVersion is the module's version and VCS revision from the build
// information: "(devel)" for a build of a checkout, with its revision
// (and "+dirty" for uncommitted changes) when built with -buildvcs.
func buildVersion() (version, commit string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", ""
	}
	version = info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if commit == "" {
		version += ", no VCS revision (built with -buildvcs=false)"
	} else if modified {
		version += " +dirty"
	}
	return version, commit
}

// noArgs refuses arguments, naming the command.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s: unexpected arguments %q", cmd.Name(), args)
	}
	return nil
}

// exactlyOne wants one argument, what (SYMBOL, KIND, FILE).
func exactlyOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("%s: exactly one %s expected", cmd.Name(), what)
		}
		return nil
	}
}
