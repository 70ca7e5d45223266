package control

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peer is the user and process id at the other end of c, as the kernel
// recorded them when the connection was made (SO_PEERCRED).
func peer(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if credErr != nil {
		return -1, 0, fmt.Errorf("SO_PEERCRED: %w", credErr)
	}
	return int(cred.Uid), int(cred.Pid), nil
}
