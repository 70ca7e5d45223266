package main

import (
	"flag"
	"fmt"
	"strings"
)

// parseOneArg parses the flags of a command that takes exactly one
// positional argument, what (KIND, SYMBOL, FILE), and returns it. Flags may
// follow it (`watch SPOT_BTC_USDT -v`).
func parseOneArg(fs *flag.FlagSet, args []string, what string) (string, error) {
	if err := fs.Parse(moveFlagsFirst(fs, args)); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return "", fmt.Errorf("%s: exactly one %s expected", fs.Name(), what)
	}
	return fs.Arg(0), nil
}

// moveFlagsFirst lets flags follow positional arguments (`replay FILE
// --speed 4`): the flag package stops at the first argument that is not a
// flag. A flag's value is the next argument unless the flag is boolean in
// fs (or -h, or unknown: Parse reports that).
func moveFlagsFirst(fs *flag.FlagSet, args []string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		if !strings.Contains(a, "=") && takesValue(fs, strings.TrimLeft(a, "-")) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, pos...)
}

func takesValue(fs *flag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}
