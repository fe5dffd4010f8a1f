package wsapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/orchestratord/orchestratord/internal/orchestrator"
)

// Envelope types.
const (
	TypeRequest      = "request"
	TypeResponse     = "response"
	TypeNotification = "notification"
	TypeError        = "error"
)

// Error codes carried in an error envelope's payload.
const (
	CodeBadRequest      = "BAD_REQUEST"
	CodeUnauthorized    = "UNAUTHORIZED"
	CodeForbidden       = "FORBIDDEN"
	CodeNotFound        = "NOT_FOUND"
	CodeValidationError = "VALIDATION_ERROR"
	CodeConflict        = "CONFLICT"
	CodeUnknownAction   = "UNKNOWN_ACTION"
	CodeRateLimited     = "RATE_LIMITED"
	CodeInternalError   = "INTERNAL_ERROR"
	// CodeUnavailable: the request needs something the daemon cannot reach
	// now (fleet.list: the fleet's database); retrying later may succeed.
	CodeUnavailable = "UNAVAILABLE"
)

// Request actions.
const (
	ActionTaskCreate         = "task.create"
	ActionTaskList           = "task.list"
	ActionTaskGet            = "task.get"
	ActionTaskUpdate         = "task.update"
	ActionTaskDelete         = "task.delete"
	ActionSessionSubscribe   = "session.subscribe"
	ActionSessionUnsubscribe = "session.unsubscribe"
	ActionSessionPage        = "session.page"
	ActionSessionPrompt      = "session.prompt"
	ActionSessionStop        = "session.stop"
	ActionSessionRecover     = "session.recover"
	ActionAgentList          = "agent.list"
	ActionGateList           = "gate.list"
	ActionFleetList          = "fleet.list"
)

// Envelope is every frame in both directions. A request's ID (a string,
// optional) is echoed in its response or error; responses and errors also
// echo the request's Action.
type Envelope struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Action  string          `json:"action,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	TS      time.Time       `json:"ts"`
}

// Error is the payload of an error envelope, and of the JSON body of an
// HTTP 401 on the upgrade.
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// errInternalMessage is what a client sees for an error that wraps no orchestrator
// sentinel; the cause is logged, not sent, since it may carry paths or SQL.
const errInternalMessage = "internal error; see the daemon log"

// toError maps a Service error to a protocol error. The second result is
// false for errors that are not the user's business (logged by the caller).
func toError(err error) (*Error, bool) {
	var e *Error
	var fe *orchestrator.FieldError
	switch {
	case errors.As(err, &e):
		return e, true
	case errors.As(err, &fe):
		return &Error{Code: CodeValidationError, Message: err.Error(), Details: map[string]any{"field": fe.Field, "reason": fe.Reason}}, true
	case errors.Is(err, orchestrator.ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error()}, true
	case errors.Is(err, orchestrator.ErrValidation):
		return &Error{Code: CodeValidationError, Message: err.Error()}, true
	case errors.Is(err, orchestrator.ErrConflict):
		return &Error{Code: CodeConflict, Message: err.Error()}, true
	case errors.Is(err, orchestrator.ErrForbidden):
		return &Error{Code: CodeForbidden, Message: err.Error()}, true
	case errors.Is(err, orchestrator.ErrStorage):
		return &Error{Code: CodeInternalError, Message: err.Error()}, true
	case errors.Is(err, orchestrator.ErrElsewhere), errors.Is(err, orchestrator.ErrFleet):
		return &Error{Code: CodeUnavailable, Message: err.Error()}, true
	case errors.Is(err, orchestrator.ErrClosed):
		return &Error{Code: CodeInternalError, Message: err.Error()}, true
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeInternalError, Message: "request timed out"}, false
	default:
		return &Error{Code: CodeInternalError, Message: errInternalMessage}, false
	}
}

// encode marshals an outgoing envelope. Payloads are our own types, so a
// marshal failure is a programming error; it still yields a valid frame.
func encode(id, typ, action string, payload any, ts time.Time) []byte {
	var raw json.RawMessage
	switch p := payload.(type) {
	case nil:
	case json.RawMessage:
		raw = p
	default:
		b, err := json.Marshal(p)
		if err != nil {
			typ = TypeError
			b, _ = json.Marshal(&Error{Code: CodeInternalError, Message: "cannot encode response"})
		}
		raw = b
	}
	b, err := json.Marshal(Envelope{ID: id, Type: typ, Action: action, Payload: raw, TS: ts.UTC()})
	if err != nil {
		// Only an invalid RawMessage from the orchestrator can get here.
		b, _ = json.Marshal(Envelope{ID: id, Type: TypeError, Action: action,
			Payload: json.RawMessage(`{"code":"INTERNAL_ERROR","message":"cannot encode notification"}`), TS: ts.UTC()})
	}
	return b
}

// request is a decoded, well-formed request envelope.
type request struct {
	id      string
	action  string
	payload json.RawMessage // nil when absent or null
}

// decodeRequest checks the envelope; the returned request carries whatever
// id and action could be read, so an error can still echo them.
func decodeRequest(data []byte) (request, *Error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(data) {
			return request{}, newError(CodeBadRequest, "malformed JSON: %v", err)
		}
		return request{}, newError(CodeBadRequest, "a request must be a JSON object")
	}
	if raw == nil {
		return request{}, newError(CodeBadRequest, "a request must be a JSON object")
	}
	var req request
	if v, ok := raw["id"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &req.id); err != nil {
			return request{}, fieldError(CodeBadRequest, "id", "id must be a string")
		}
	}
	if v, ok := raw["action"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &req.action); err != nil {
			return req, fieldError(CodeBadRequest, "action", "action must be a string")
		}
	}
	var typ string
	if v, ok := raw["type"]; ok && !isNull(v) {
		if err := json.Unmarshal(v, &typ); err != nil {
			return req, fieldError(CodeBadRequest, "type", "type must be a string")
		}
	}
	switch {
	case typ == "":
		return req, fieldError(CodeBadRequest, "type", `type is required and must be "request"`)
	case typ != TypeRequest:
		return req, fieldError(CodeBadRequest, "type", `type must be "request", got %q`, typ)
	case req.action == "":
		return req, fieldError(CodeBadRequest, "action", "action is required")
	}
	if v, ok := raw["payload"]; ok && !isNull(v) {
		req.payload = v
	}
	return req, nil
}

// fieldError names the offending field in Details.
func fieldError(code, field, format string, args ...any) *Error {
	e := newError(code, format, args...)
	e.Details = map[string]any{"field": field}
	return e
}

func isNull(v json.RawMessage) bool { return string(v) == "null" }

// decodePayload fills dst (a pointer to a struct) from the request payload.
// Unknown fields are ignored so clients can evolve; wrong types are not.
func decodePayload(payload json.RawMessage, dst any) *Error {
	if payload == nil {
		return nil
	}
	if len(payload) == 0 || payload[0] != '{' {
		return fieldError(CodeValidationError, "payload", "payload must be a JSON object")
	}
	if err := json.Unmarshal(payload, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fieldError(CodeValidationError, te.Field, "%s must be %s, got %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return fieldError(CodeValidationError, "payload", "invalid payload: %v", err)
	}
	return nil
}

// jsonKind names a Go kind the way a JSON client thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	default:
		return "a " + kind
	}
}
