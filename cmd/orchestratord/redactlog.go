package main

import (
	"fmt"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

// redactCore passes every log entry through the sanitiser: its message and
// every field that can hold text (strings, bytes, errors, stringers and
// reflected values), so no secret reaches the logs whoever logs it.
type redactCore struct{ zapcore.Core }

func redactLogs(c zapcore.Core) zapcore.Core { return redactCore{c} }

func (c redactCore) With(fs []zapcore.Field) zapcore.Core {
	return redactCore{c.Core.With(redactFields(fs))}
}

func (c redactCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c redactCore) Write(e zapcore.Entry, fs []zapcore.Field) error {
	e.Message = routingerr.RedactSecrets(e.Message)
	return c.Core.Write(e, redactFields(fs))
}

func redactFields(fs []zapcore.Field) []zapcore.Field {
	out, copied := fs, false
	for i, f := range fs {
		var text string
		switch f.Type {
		case zapcore.StringType:
			text = f.String
		case zapcore.ByteStringType:
			b, _ := f.Interface.([]byte)
			text = string(b)
		case zapcore.ErrorType:
			if err, ok := f.Interface.(error); ok && err != nil {
				text = err.Error()
			}
		case zapcore.StringerType:
			if s, ok := f.Interface.(fmt.Stringer); ok && s != nil {
				text = s.String()
			}
		case zapcore.ReflectType:
			text = fmt.Sprintf("%+v", f.Interface)
		default:
			continue
		}
		clean := routingerr.RedactSecrets(text)
		if clean == text {
			continue // nothing to hide: keep the field as it is
		}
		if !copied {
			out, copied = append([]zapcore.Field(nil), fs...), true
		}
		out[i] = zap.String(f.Key, clean)
	}
	return out
}
