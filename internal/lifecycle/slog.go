package lifecycle

import (
	"context"
	"io"
	"log/slog"
	"slices"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// zapSlog routes the SDK's slog diagnostics into our zap logger, one level
// down: the SDK logs every disconnect at info, which is routine for us.
type zapSlog struct {
	l     *zap.Logger
	attrs []zap.Field
}

func newSDKLogger(l *zap.Logger) *slog.Logger {
	return slog.New(zapSlog{l: l.Named("acp")})
}

func (h zapSlog) level(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zapcore.WarnLevel
	case l >= slog.LevelWarn:
		return zapcore.InfoLevel
	default:
		return zapcore.DebugLevel
	}
}

func (h zapSlog) Enabled(_ context.Context, l slog.Level) bool {
	return h.l.Core().Enabled(h.level(l))
}

func (h zapSlog) Handle(_ context.Context, r slog.Record) error {
	ce := h.l.Check(h.level(r.Level), r.Message)
	if ce == nil {
		return nil
	}
	fields := slices.Clone(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fields = append(fields, zap.Any(a.Key, a.Value.Any()))
		return true
	})
	ce.Write(fields...)
	return nil
}

func (h zapSlog) WithAttrs(as []slog.Attr) slog.Handler {
	fields := slices.Clone(h.attrs)
	for _, a := range as {
		fields = append(fields, zap.Any(a.Key, a.Value.Any()))
	}
	return zapSlog{l: h.l, attrs: fields}
}

func (h zapSlog) WithGroup(name string) slog.Handler {
	return zapSlog{l: h.l.Named(name), attrs: h.attrs}
}

// gatedReader holds the SDK's first Read until open is closed. The SDK
// reads its logger field without synchronisation, so SetLogger must happen
// before its reader can log (an agent that dies at once would race).
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
