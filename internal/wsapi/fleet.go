package wsapi

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/fleet"
)

// fleetListResponse is fleet.list's answer.
type fleetListResponse struct {
	SelfID  string         `json:"self_id"`
	Daemons []fleet.Member `json:"daemons"`
}

// fleetList answers with the fleet's daemons: {live_only?} → {self_id,
// daemons}.
func fleetList(ctx context.Context, c *conn, req request) (any, func(), error) {
	var p struct {
		LiveOnly bool `json:"live_only"`
	}
	if err := decodePayload(req.payload, &p); err != nil {
		return nil, nil, err
	}
	if c.s.cfg.Fleet == nil {
		return nil, nil, newError(CodeUnavailable, "this daemon has no fleet membership")
	}
	ms, err := c.s.cfg.Fleet.Members(ctx)
	if err != nil {
		if errors.Is(err, fleet.ErrUnavailable) {
			c.s.log.Warn("fleet.list: membership unavailable", zap.Error(err))
			return nil, nil, newError(CodeUnavailable, "the fleet's membership cannot be read now (database unreachable); try again")
		}
		return nil, nil, err
	}
	out := fleetListResponse{Daemons: make([]fleet.Member, 0, len(ms))}
	for _, m := range ms {
		if m.Self {
			out.SelfID = m.ID
		}
		if p.LiveOnly && m.Health != fleet.HealthLive {
			continue
		}
		out.Daemons = append(out.Daemons, m)
	}
	return out, nil, nil
}
