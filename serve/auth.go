package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"charm.land/log/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"tradedeck/loopback"
)

// DefaultAuthorizedKeys is ~/.ssh/authorized_keys when that file exists,
// else "".
func DefaultAuthorizedKeys(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	if home == "" {
		return ""
	}
	p := filepath.Join(home, ".ssh", "authorized_keys")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// IsLoopback reports whether a listen address only accepts connections
// from this machine ("localhost" counts; all interfaces do not).
func IsLoopback(listen string) bool { return loopback.Only(listen) }

// Role is what a key may do in a session.
type Role int

const (
	// Viewer sees the desk and cannot trade: every key's role unless
	// its line says otherwise.
	Viewer Role = iota
	// Trader may trade and change the account, when the server runs
	// with --trade.
	Trader
)

func (r Role) String() string {
	if r == Trader {
		return "trader"
	}
	return "viewer"
}

// RoleOption is the authorized_keys option giving a key its role, in
// OpenSSH's option syntax before the key:
//
//	tradedeck-role=trader ssh-ed25519 AAAA... alice@desk
const RoleOption = "tradedeck-role"

// AuthorizedKey is a key allowed in, with its role.
type AuthorizedKey struct {
	Key  gossh.PublicKey
	Role Role
}

// readAuthorizedKeys parses an authorized_keys file. The only option
// accepted is RoleOption: others (from=, command=, ...) would not be
// enforced, so a file carrying any is refused rather than silently
// widened; so is a key listed twice with different roles.
func readAuthorizedKeys(path string) ([]AuthorizedKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys []AuthorizedKey
	seen := map[string]Role{}
	for len(bytes.TrimSpace(b)) > 0 {
		var (
			k    gossh.PublicKey
			opts []string
		)
		// Blank, comment and unparsable lines are skipped (as sshd does);
		// the error only says no key is left.
		k, _, opts, b, err = gossh.ParseAuthorizedKey(b)
		if err != nil {
			break
		}
		fp := gossh.FingerprintSHA256(k)
		role, err := roleOf(opts)
		if err != nil {
			return nil, fmt.Errorf("%s: key %s: %w", path, fp, err)
		}
		if r, ok := seen[fp]; ok && r != role {
			return nil, fmt.Errorf("%s: key %s is listed twice, as %s and as %s", path, fp, r, role)
		}
		seen[fp] = role
		keys = append(keys, AuthorizedKey{k, role})
	}
	return keys, nil
}

// roleOf reads a key line's options: RoleOption or nothing.
func roleOf(opts []string) (Role, error) {
	role, set := Viewer, false
	for _, o := range opts {
		name, value, _ := strings.Cut(o, "=")
		if name != RoleOption {
			return Viewer, fmt.Errorf("option %q: tradedeck serve does not enforce it (only %s=viewer|trader is understood); remove it or use a separate file", o, RoleOption)
		}
		if set {
			return Viewer, fmt.Errorf("%s given twice", RoleOption)
		}
		switch strings.Trim(value, `"`) {
		case "viewer":
			role = Viewer
		case "trader":
			role = Trader
		default:
			return Viewer, fmt.Errorf("%s=%s: the roles are viewer and trader", RoleOption, value)
		}
		set = true
	}
	return role, nil
}

// keyAuth builds the public-key handler. The file is read again on every
// attempt (like sshd), so adding or removing a key needs no restart; a
// file that has become unreadable refuses everyone. path "" allows any
// key (only offered on loopback).
func keyAuth(path string, logger *log.Logger) ssh.PublicKeyHandler {
	return func(ctx ssh.Context, key ssh.PublicKey) bool {
		if path == "" {
			return true
		}
		fp := gossh.FingerprintSHA256(key)
		_, ok, err := authorized(path, key)
		if err != nil {
			logger.Error("auth refused: authorized keys unreadable", "remote", ctx.RemoteAddr().String(), "user", ctx.User(), "key", fp, "err", err)
			return false
		}
		if ok {
			return true
		}
		// The client may offer several keys; each refusal is one line.
		logger.Warn("auth refused: key not authorized", "remote", ctx.RemoteAddr().String(), "user", ctx.User(), "key", fp)
		return false
	}
}

// authorized reports whether key is in the authorized_keys file at path,
// and its role there.
func authorized(path string, key ssh.PublicKey) (Role, bool, error) {
	keys, err := readAuthorizedKeys(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("authorized keys file %s is gone", path)
		}
		return Viewer, false, err
	}
	for _, k := range keys {
		if ssh.KeysEqual(k.Key, key) {
			return k.Role, true, nil
		}
	}
	return Viewer, false, nil
}
