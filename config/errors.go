package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
)

// decodeError describes a TOML error by line and key only. The decoder's
// own text can quote the value ("expected value but found \"abc...\""),
// and an unquoted api_secret would then be printed: nothing of the file's
// content beyond its key names ever reaches an error.
func decodeError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		hint := "not valid TOML"
		if strings.HasPrefix(pe.Message, "expected value") {
			hint = `the value is not valid TOML (text must be quoted: key = "text")`
		}
		return fmt.Errorf("config %s: line %d%s: %s", path, pe.Position.Line, keyPart(pe.LastKey), hint)
	}
	// Type mismatches are plain errors: "toml: line N (last key "K"):
	// incompatible types: TOML value has type T; destination has type D".
	if m := typeErr.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("config %s: line %s%s: %s where %s is expected", path, m[1], keyPart(m[2]), article(m[3]), article(m[4]))
	}
	if m := lineKey.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("config %s: line %s%s: invalid value", path, m[1], keyPart(m[2]))
	}
	return fmt.Errorf("config %s: not valid TOML", path)
}

var (
	lineKey = regexp.MustCompile(`line (\d+) \(last key "([^"]*)"\)`)
	typeErr = regexp.MustCompile(`line (\d+) \(last key "([^"]*)"\): incompatible types: TOML value has type (\w+); destination has type (\w+)`)
)

func keyPart(k string) string {
	if k == "" {
		return ""
	}
	return ", key " + k
}

func article(typ string) string {
	if typ != "" && strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}
