package algo

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"
)

// errWorkPending: the working orders' runner is not in this build yet.
var errWorkPending = errors.New("working orders (chase, scale, twap) are not run by this build yet")

// Pause stops a working order for now: its open children are cancelled
// (each to its final state) and it waits in StatePaused. A protective
// kind is refused with ErrNotPausable.
func (e *Engine) Pause(id ID, why string) error {
	a, err := e.workAlgo(id)
	if err != nil {
		return err
	}
	_ = a
	_ = why
	return errWorkPending
}

// Resume puts a paused working order back to work; a TWAP's missed
// slices follow its CatchUp policy.
func (e *Engine) Resume(id ID) error {
	if _, err := e.workAlgo(id); err != nil {
		return err
	}
	return errWorkPending
}

// Tighten gives a trailing stop a new trail, as a percent or a price
// distance (one of the two): only ever tighter than now.
func (e *Engine) Tighten(id ID, percent, distance decimal.Decimal) error {
	if percent.IsPositive() == distance.IsPositive() {
		return fmt.Errorf("algo %d: give the new trail as a percent or a distance, one of them", id)
	}
	return fmt.Errorf("algo %d: tighten: %w", id, errWorkPending)
}

// workAlgo finds a working order that is not finished.
func (e *Engine) workAlgo(id ID) (*algoState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	a := e.algos[id]
	switch {
	case a == nil:
		return nil, fmt.Errorf("algo %d: %w", id, ErrNotFound)
	case !a.spec.Kind.Working():
		return nil, fmt.Errorf("algo %d: %w", id, ErrNotPausable)
	case a.state.Final():
		return nil, fmt.Errorf("algo %d: %w", id, ErrFinal)
	}
	return a, nil
}
