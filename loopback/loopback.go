// Package loopback tells whether a listen address is reachable from this
// machine only: the servers that hold the desk's keys (serve, the
// simulated venue) refuse weaker protection anywhere else.
package loopback

import "net"

// Only reports whether a listen address only accepts connections from
// this machine. "localhost" counts; an empty host (all interfaces) and
// other host names do not.
func Only(listen string) bool {
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
