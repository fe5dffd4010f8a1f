package orchestrator

// What the chat page shows around a turn's text: a tool call's input,
// output and permission answer; "stopped" and "recovered after N retries"
// marks on the agent's reply; the failure itself in a banner's details; and
// whether a failed session is a pause the user chose (TaskView.Paused).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/orchestratord/orchestratord/internal/lifecycle"
	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// maxErrorDetail caps the error text a banner's details show.
const maxErrorDetail = 4 << 10

// toolDetailsLocked copies a tool event's input, output and permission
// answer into its message's metadata, sanitised like every shown text.
func toolDetailsLocked(md map[string]any, ev lifecycle.Event) {
	if ev.Input != "" {
		md["input"] = routingerr.Sanitize(ev.Input)
	}
	if ev.Output != "" {
		md["output"] = routingerr.Sanitize(ev.Output)
	}
	if ev.Permission != "" {
		md["permission"] = ev.Permission
		if ev.PermissionOption != "" {
			md["permission_option"] = routingerr.Sanitize(ev.PermissionOption)
		}
	}
}

// markAgentMsgsLocked sets metadata key=value on the agent text messages of
// an attempt (only its last one when lastOnly).
func (s *Service) markAgentMsgsLocked(rt *sessionRT, t *turn, key string, value any, lastOnly bool) {
	if len(t.agentMsgs) == 0 {
		return
	}
	ids := t.agentMsgs
	if lastOnly {
		ids = ids[len(ids)-1:]
	}
	s.flushOrFailLocked(rt) // a reply may still be in the buffer (stream.go)
	msgs, err := s.store.ListMessages(s.storeCtx(), rt.sess.ID)
	if err != nil {
		s.log.Error("list messages to mark a reply failed", zap.String("session_id", rt.sess.ID),
			zap.String("mark", key), zap.Error(err))
		return
	}
	for _, m := range msgs {
		if m.Role != "agent" || !slices.Contains(ids, m.ID) || m.Metadata[key] == value {
			continue
		}
		if m.Metadata == nil {
			m.Metadata = map[string]any{}
		}
		m.Metadata[key] = value
		_ = s.replaceMessageLocked(rt, m)
	}
}

// errorDetail is the failure itself, as the agent reported it (JSON-RPC
// code, message and data, else the transport error and exit status),
// sanitised and capped at a line boundary: what a user copies into a bug
// report, without the agent's log lines.
func errorDetail(ev routingerr.Evidence) string {
	ev = routingerr.SanitizeEvidence(ev) // each field, and the whole again below
	var b strings.Builder
	if ev.HasRPCError {
		fmt.Fprintf(&b, "JSON-RPC error %d: %s", ev.RPCCode, ev.RPCMessage)
		if ev.RPCData != "" {
			var pretty bytes.Buffer
			if json.Indent(&pretty, []byte(ev.RPCData), "", "  ") == nil {
				b.WriteString("\ndata: " + pretty.String())
			} else {
				b.WriteString("\ndata: " + ev.RPCData)
			}
		}
	}
	if ev.Err != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(ev.Err)
	}
	if ev.ExitStatus != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("agent process: " + ev.ExitStatus)
	}
	out := routingerr.Sanitize(b.String())
	if len(out) <= maxErrorDetail {
		return out
	}
	cut := strings.LastIndexByte(out[:maxErrorDetail], '\n')
	if cut <= 0 {
		cut = maxErrorDetail
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
	}
	return out[:cut] + "\n… (cut: the rest is in the daemon's log)"
}

// pausedLocked: the session's banner is a pause the user chose (Cancel on a
// retry), not a failure.
func pausedLocked(rt *sessionRT) bool {
	return rt.banner != "" && rt.bannerReason == kindRetryCancelled
}
