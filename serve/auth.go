package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	"charm.land/log/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
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
// from this machine. "localhost" counts; an empty host (all interfaces)
// does not.
func IsLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readAuthorizedKeys parses an authorized_keys file. Options before a key
// (from=, command=, ...) are not enforced, so a file carrying any is
// refused rather than silently widened.
func readAuthorizedKeys(path string) ([]gossh.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var keys []gossh.PublicKey
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
		if len(opts) > 0 {
			return nil, fmt.Errorf("%s: key %s has options %v, which tradedeck serve does not enforce; remove them or use a separate file", path, gossh.FingerprintSHA256(k), opts)
		}
		keys = append(keys, k)
	}
	return keys, nil
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
		ok, err := authorized(path, key)
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

// authorized reports whether key is in the authorized_keys file at path.
func authorized(path string, key ssh.PublicKey) (bool, error) {
	keys, err := readAuthorizedKeys(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("authorized keys file %s is gone", path)
		}
		return false, err
	}
	for _, k := range keys {
		if ssh.KeysEqual(k, key) {
			return true, nil
		}
	}
	return false, nil
}
