package serve

import (
	"encoding/binary"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// What one client can make the server hold is bounded, whatever it sends.
// The screen is the big one: the terminal renderer keeps a buffer of
// 112-byte cells of the window's size, and a flush borrows another, so a
// 1600x800 request alone would cost ~290 MB. Sizes above the cap are
// drawn at the cap (top left of the client's window).
const (
	DefaultMaxWidth  = 320 // columns: a 1440p display full screen at a small font
	DefaultMaxHeight = 100 // rows

	maxChannelsPerConn = 4    // open session channels on one connection (ssh multiplexing)
	maxEnvVars         = 32   // env requests accepted per session; more are refused
	maxEnvBytes        = 8192 // total NAME=value bytes accepted per session
	maxTermLen         = 64   // longest TERM in a pty request
)

// clampSize caps a window size; negative sizes become 0.
func (s *Server) clampSize(w, h int) (int, int) {
	return max(0, min(w, s.cfg.MaxWidth)), max(0, min(h, s.cfg.MaxHeight))
}

// sizeOptions make the program start at the capped size and see every
// later resize capped, before its renderer does. The filter also keeps
// wish's own (a suspend request resumes at once: there is no shell to
// suspend to), since a program has one filter.
func (s *Server) sizeOptions(width, height int) []tea.ProgramOption {
	w, h := s.clampSize(width, height)
	return []tea.ProgramOption{
		tea.WithWindowSize(w, h),
		tea.WithFilter(func(_ tea.Model, msg tea.Msg) tea.Msg {
			switch msg := msg.(type) {
			case tea.WindowSizeMsg:
				msg.Width, msg.Height = s.clampSize(msg.Width, msg.Height)
				return msg
			case tea.SuspendMsg:
				return tea.ResumeMsg{}
			}
			return msg
		}),
	}
}

type channelCountKey struct{}

// countChannels gives a connection its open-channel counter.
func countChannels(ctx ssh.Context) {
	ctx.SetValue(channelCountKey{}, new(atomic.Int32))
}

// limitedSession is the "session" channel handler: at most
// maxChannelsPerConn at once per connection, and each session's requests
// filtered (limitRequests) before charm.land/ssh stores them.
func limitedSession(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	if n, ok := ctx.Value(channelCountKey{}).(*atomic.Int32); ok {
		if n.Add(1) > maxChannelsPerConn {
			n.Add(-1)
			_ = newChan.Reject(gossh.ResourceShortage, "too many sessions on one connection")
			return
		}
		defer n.Add(-1)
	}
	ssh.DefaultSessionHandler(srv, conn, limitedChannel{newChan}, ctx)
}

// limitedChannel hands the session a filtered request stream.
type limitedChannel struct{ gossh.NewChannel }

func (c limitedChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go limitRequests(reqs, out)
	return ch, out, nil
}

// limitRequests forwards a session's requests, refusing those that would
// make it hold unbounded client data: env past maxEnvVars or maxEnvBytes
// (charm.land/ssh keeps every one), and a pty request with an overlong
// TERM. Window changes are coalesced, latest wins: a client flooding
// resizes costs one redraw per size the session gets round to, not one
// per message. It ends when the channel's requests do; the session
// drains out.
func limitRequests(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	var (
		vars, bytes int
		resize      *gossh.Request // latest window change not yet forwarded
	)
	for in != nil || resize != nil {
		send := out
		if resize == nil {
			send = nil // nothing to forward: wait for input only
		}
		select {
		case send <- resize:
			resize = nil
		case req, ok := <-in:
			if !ok {
				in = nil
				continue
			}
			switch req.Type {
			case "window-change":
				// Acknowledged here; the forwarded copy wants no reply.
				if req.WantReply {
					_ = req.Reply(true, nil)
				}
				resize = &gossh.Request{Type: req.Type, Payload: req.Payload}
				continue
			case "env":
				vars++
				bytes += len(req.Payload)
				if vars > maxEnvVars || bytes > maxEnvBytes {
					refuse(req)
					continue
				}
			case "pty-req":
				if termLen(req.Payload) > maxTermLen {
					refuse(req)
					continue
				}
			}
			if resize != nil { // keep the order: the pending resize first
				out <- resize
				resize = nil
			}
			out <- req
		}
	}
}

func refuse(req *gossh.Request) {
	if req.WantReply {
		_ = req.Reply(false, nil)
	}
}

// termLen is the length of the TERM string a pty request starts with
// (RFC 4254 6.2); a malformed payload counts as too long.
func termLen(payload []byte) int {
	if len(payload) < 4 {
		return maxTermLen + 1
	}
	return int(binary.BigEndian.Uint32(payload))
}
