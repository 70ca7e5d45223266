package ws

import (
	"context"
	"net"
	"net/http"
	"time"
)

// quietClient is the HTTP client a stream dials with: the default
// transport's settings (proxy from the environment, TLS, timeouts), its
// connections wrapped by quiet.
var quietClient = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return quiet(c), nil
	}
	return &http.Client{Transport: t}
}()
