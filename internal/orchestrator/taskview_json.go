package orchestrator

// task.updated's payload written by hand. encoding/json spends ~3.3 µs
// and 5 allocations on one task view (reflection over two nested
// structs), and a burst of ten thousand retries due at one instant
// publishes ten thousand of them before the last one's clients hear it is
// starting (issue 13: fire lateness p99 < 10 ms). This writes the same
// bytes as json.Marshal(map[string]any{"task": v}) in ~0.4 µs; anything
// it does not write byte for byte (a string that needs escaping, a time
// MarshalJSON refuses, a float that is not finite) goes through
// encoding/json: for a string that string, otherwise the whole view. taskview_json_test.go holds the two equal for every field.

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/orchestratord/orchestratord/internal/store"
)

// encodeTaskUpdated is json.Marshal(map[string]any{"task": v}).
func encodeTaskUpdated(v *TaskView) ([]byte, error) {
	b, ok := appendTaskView(make([]byte, 0, 768), v)
	if !ok {
		return json.Marshal(map[string]any{"task": v})
	}
	return b, nil
}

func appendTaskView(b []byte, v *TaskView) ([]byte, bool) {
	if !plainTimes(v) {
		return nil, false // encoding/json's error, or its slow path
	}
	t := &v.Task
	b = append(b, `{"task":{"id":`...)
	b = appendJSONString(b, t.ID)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, t.Title)
	b = append(b, `,"agent":`...)
	b = appendJSONString(b, t.Agent)
	b = append(b, `,"workdir":`...)
	b = appendJSONString(b, t.Workdir)
	if t.MaxAttempts != 0 {
		b = append(b, `,"max_attempts":`...)
		b = strconv.AppendInt(b, int64(t.MaxAttempts), 10)
	}
	b = append(b, `,"state":`...)
	b = appendJSONString(b, t.State)
	b = append(b, `,"created_at":`...)
	b = appendJSONTime(b, t.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendJSONTime(b, t.UpdatedAt)
	if t.ArchivedAt != nil {
		b = append(b, `,"archived_at":`...)
		b = appendJSONTime(b, *t.ArchivedAt)
	}
	if t.OnUsageLimit != "" {
		b = append(b, `,"on_usage_limit":`...)
		b = appendJSONString(b, t.OnUsageLimit)
	}
	if f := v.GateDeadlineSeconds; f != 0 {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false // encoding/json's error, not ours
		}
		b = append(b, `,"gate_deadline_seconds":`...)
		b = appendJSONFloat(b, f)
	}
	b = append(b, `,"sessions":`...)
	if v.Sessions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range v.Sessions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendSession(b, &v.Sessions[i])
		}
		b = append(b, ']')
	}
	if v.QueuePosition != 0 {
		b = append(b, `,"queue_position":`...)
		b = strconv.AppendInt(b, int64(v.QueuePosition), 10)
	}
	if v.Paused {
		b = append(b, `,"paused":true`...)
	}
	if v.Model != "" {
		b = append(b, `,"model":`...)
		b = appendJSONString(b, v.Model)
	}
	return append(b, "}}"...), true
}

func appendSession(b []byte, s *store.Session) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, s.ID)
	b = append(b, `,"task_id":`...)
	b = appendJSONString(b, s.TaskID)
	b = append(b, `,"state":`...)
	b = appendJSONString(b, s.State)
	if s.AgentSessionID != "" {
		b = append(b, `,"agent_session_id":`...)
		b = appendJSONString(b, s.AgentSessionID)
	}
	b = append(b, `,"generation":`...)
	b = strconv.AppendInt(b, s.Generation, 10)
	b = append(b, `,"last_seq":`...)
	b = strconv.AppendInt(b, s.LastSeq, 10)
	b = append(b, `,"created_at":`...)
	b = appendJSONTime(b, s.CreatedAt)
	b = append(b, `,"updated_at":`...)
	b = appendJSONTime(b, s.UpdatedAt)
	if s.Model != "" {
		b = append(b, `,"model":`...)
		b = appendJSONString(b, s.Model)
	}
	return append(b, '}')
}

// appendJSONString writes s as encoding/json does: printable ASCII other
// than the quote, the backslash and <, >, & (escaped for HTML) as is;
// anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&':
			q, _ := json.Marshal(s) // a string never fails
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONTime writes t as time.Time.MarshalJSON does, for a time
// plainTime accepts.
func appendJSONTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// plainTime: MarshalJSON writes t as RFC 3339 with nanoseconds, no error
// (a four-digit year, a zone offset under a day).
func plainTime(t time.Time) bool {
	if y := t.Year(); y < 0 || y > 9999 {
		return false
	}
	_, off := t.Zone()
	return off > -24*3600 && off < 24*3600
}

// plainTimes: every time of v is plainTime.
func plainTimes(v *TaskView) bool {
	t := &v.Task
	if !plainTime(t.CreatedAt) || !plainTime(t.UpdatedAt) || (t.ArchivedAt != nil && !plainTime(*t.ArchivedAt)) {
		return false
	}
	for i := range v.Sessions {
		if !plainTime(v.Sessions[i].CreatedAt) || !plainTime(v.Sessions[i].UpdatedAt) {
			return false
		}
	}
	return true
}

// appendJSONFloat writes a finite f as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
