package tea

// tradedeck fork: a frame only when there is something to draw. Upstream
// flushes the renderer on a ticker at the program's frame rate whether or
// not anything changed (60 wake-ups a second on an idle screen); here
// render signals the renderer's goroutine when the view it handed over
// needs a flush, and the goroutine flushes at once, or at the earliest
// one frame interval after the last flush. See third_party/README.md.

import "time"

// flushPending is what a renderer that can tell says about a flush now:
// whether it would write anything.
type flushPending interface {
	flushPending() bool
}

// frameDueSignal tells the renderer's goroutine that a flush is due; it
// never blocks (one signal pending is enough).
func (p *Program) frameDueSignal() {
	select {
	case p.frameDue <- struct{}{}:
	default:
	}
}

// renderChanged signals a flush when the renderer has something to write
// after render handed it a view.
func (p *Program) renderChanged() {
	if r, ok := p.renderer.(flushPending); ok && !r.flushPending() {
		return
	}
	p.frameDueSignal()
}

// renderOnDemand is the renderer's goroutine: it sleeps until a flush is
// due, and keeps at least framerate between two flushes (one timer per
// frame at most, none while nothing changes).
func (p *Program) renderOnDemand(framerate time.Duration) {
	wait := time.NewTimer(time.Hour)
	wait.Stop()
	last := time.Now() // the first flush one interval after start, as upstream's first tick
	for {
		select {
		case <-p.rendererDone:
			return
		case <-p.frameDue:
		}
		if d := framerate - time.Since(last); d > 0 {
			wait.Reset(d)
			select {
			case <-p.rendererDone:
				wait.Stop()
				return
			case <-wait.C:
			}
		}
		select { // a signal sent meanwhile is served by this flush
		case <-p.frameDue:
		default:
		}
		last = time.Now()
		_ = p.flush()
		_ = p.renderer.flush(false)
	}
}

// flushPending reports whether flush would write anything: the view
// changed since the last flush, or the screen must be redrawn (start,
// resize, clear). It is flush's own early return, asked ahead.
func (s *cursedRenderer) flushPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.starting || s.pendingErase || s.lastView == nil || !viewEquals(s.lastView, &s.view) {
		return true
	}
	if s.bounds.Dx() != s.width {
		return true
	}
	return s.view.AltScreen && !viewEmpty(&s.view) && s.bounds.Dy() != s.height
}
