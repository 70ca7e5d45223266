package control

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotRunning: no process runs the engine of the account.
var ErrNotRunning = errors.New("engine not running: nothing protects these positions")

// Find connects to the engine of the account whose files are p. No
// process holding the lock gives ErrNotRunning; a holder that does not
// answer yet (it is starting) is tried again until ctx ends.
func Find(ctx context.Context, p Paths, by string) (*Client, error) {
	for {
		c, err := Dial(ctx, p.Socket, by)
		if err == nil {
			return c, nil
		}
		h, held, herr := Held(p)
		if herr != nil {
			return nil, herr
		}
		if !held {
			return nil, ErrNotRunning
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the engine of this account runs in %s but does not answer on %s: %v", h, p.Socket, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
