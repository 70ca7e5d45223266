package control

import (
	"encoding/json"
	"fmt"

	"github.com/shopspring/decimal"

	"tradedeck/algo"
)

// answer runs one request on the engine.
func (s *Server) answer(req Request, by string) Response {
	data, err := s.run(req, by)
	r := Response{ID: req.ID}
	if err != nil {
		r.Error, r.Code = clean(err.Error()), codeOf(err)
		return r
	}
	b, err := json.Marshal(data)
	if err != nil {
		return Response{ID: req.ID, Error: clean(err.Error())}
	}
	r.Data = b
	return r
}

func (s *Server) run(req Request, by string) (any, error) {
	e := s.cfg.Engine
	switch req.Op {
	case OpHello:
		info := s.cfg.Info
		select {
		case <-e.Ready():
			info.Ready = true
		default:
		}
		return info, nil
	case OpSnapshot:
		return e.Snapshot(), nil
	case OpProtection:
		return e.Protection(), nil
	case OpPreview:
		spec, err := specOf(req)
		if err != nil {
			return nil, err
		}
		return e.Preview(spec)
	}
	// The changes: each one told to the host's audit.
	who := by
	if req.By != "" {
		who = clean(req.By) + " (" + by + ")"
	}
	var detail string
	var out any
	var err error
	switch req.Op {
	case OpAdd:
		var spec algo.Spec
		if spec, err = specOf(req); err != nil {
			return nil, err
		}
		detail = spec.String()
		var a algo.Algo
		a, err = e.Add(spec, algo.Confirm{FireIfThrough: req.FireIfThrough, By: who})
		if err == nil {
			detail = fmt.Sprintf("#%d %s", a.ID, detail)
		}
		out = a
	case OpCancel:
		detail = fmt.Sprintf("#%d", req.Algo)
		if req.Why != "" {
			detail += ": " + clean(req.Why)
		}
		err = e.Cancel(req.Algo, clean(req.Why))
	case OpCancelAll:
		detail = "every symbol"
		if req.Symbol != "" {
			detail = req.Symbol
		}
		why := req.Why
		if why == "" {
			why = "cancelled by " + who
		}
		err = e.CancelAll(algo.Scope{Symbol: req.Symbol, Why: clean(why)})
	case OpAmend:
		if req.Price == nil {
			return nil, fmt.Errorf("%w: amend needs a price", ErrBadRequest)
		}
		detail = fmt.Sprintf("#%d %s to %s", req.Algo, req.Leg, req.Price)
		err = e.AmendTrigger(req.Algo, req.Leg, *req.Price)
	case OpResolve:
		detail = fmt.Sprintf("#%d decision %d", req.Algo, req.Decision)
		err = e.Resolve(req.Algo, req.Decision)
	case OpPause:
		detail = fmt.Sprintf("#%d", req.Algo)
		why := req.Why
		if why == "" {
			why = "paused by " + who
		}
		err = e.Pause(req.Algo, clean(why))
	case OpResume:
		detail = fmt.Sprintf("#%d", req.Algo)
		err = e.Resume(req.Algo)
	case OpTighten:
		pct, dist := decimal.Zero, decimal.Zero
		if req.Percent != nil {
			pct = *req.Percent
		}
		if req.Distance != nil {
			dist = *req.Distance
		}
		detail = fmt.Sprintf("#%d trail %s%% / %s", req.Algo, pct, dist)
		err = e.Tighten(req.Algo, pct, dist)
	default:
		return nil, fmt.Errorf("%w: unknown op %q", ErrBadRequest, clean(req.Op))
	}
	if s.cfg.Action != nil {
		s.cfg.Action(who, req.Op, detail, err)
	}
	if out == nil {
		out = true
	}
	return out, err
}

// specOf is the request's spec: the one given, else its line parsed.
func specOf(req Request) (algo.Spec, error) {
	if req.Spec != nil {
		return *req.Spec, nil
	}
	if req.Line == "" {
		return algo.Spec{}, fmt.Errorf("%w: %s needs a spec or a line", ErrBadRequest, req.Op)
	}
	spec, err := algo.Parse(req.Line)
	if err != nil {
		return algo.Spec{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return spec, nil
}
