package loopback

import "testing"

func TestOnly(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:2222": true, "127.5.6.7:1": true, "[::1]:2222": true, "localhost:0": true,
		":2222": false, "0.0.0.0:2222": false, "[::]:1": false, "192.168.1.2:22": false,
		"example.com:22": false, "127.0.0.1": false, "": false,
	} {
		if got := Only(addr); got != want {
			t.Errorf("Only(%q) = %v, want %v", addr, got, want)
		}
	}
}
