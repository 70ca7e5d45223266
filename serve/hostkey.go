package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"tradedeck/xdg"
)

// DefaultHostKeyPath is where the host key lives unless --host-key says
// otherwise: $XDG_DATA_HOME/tradedeck/ssh_host_ed25519_key (default
// ~/.local/share/...). It is generated once, so clients see the same key
// on every start.
func DefaultHostKeyPath(getenv func(string) string) string {
	return filepath.Join(xdg.Data(getenv), "ssh_host_ed25519_key")
}

// LoadOrCreateHostKey reads the host key at path (OpenSSH private key
// PEM), or generates an ed25519 key and writes it there with mode 0600
// (directory 0700) when the file does not exist. Like sshd, it refuses a
// key file that others may read. It returns the PEM and the signer.
func LoadOrCreateHostKey(path string) ([]byte, gossh.Signer, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b, err = createHostKey(path)
		if err != nil {
			return nil, nil, err
		}
	case err != nil:
		return nil, nil, fmt.Errorf("host key: %w", err)
	default:
		st, err := os.Stat(path)
		if err != nil {
			return nil, nil, fmt.Errorf("host key: %w", err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			return nil, nil, fmt.Errorf("host key %s is accessible by others (mode %04o): chmod 600 it", path, st.Mode().Perm())
		}
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, nil, fmt.Errorf("host key %s: %w", path, err)
	}
	return b, signer, nil
}

func createHostKey(path string) ([]byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "tradedeck serve host key")
	if err != nil {
		return nil, fmt.Errorf("generate host key: %w", err)
	}
	b := pem.EncodeToMemory(block)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	// O_EXCL: two servers starting at once never overwrite each other's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("host key: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("host key: %w", err)
	}
	return b, nil
}
