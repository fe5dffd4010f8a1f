package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/orchestratord/orchestratord/internal/routingerr"
)

func TestLogsAreRedacted(t *testing.T) {
	const token = "daemon-token-for-the-log-test"
	routingerr.RegisterSecret(token)
	core, logs := observer.New(zapcore.DebugLevel)
	log := zap.New(redactLogs(core)).With(zap.String("token", token))
	log.Info("sent Authorization: Bearer abcdefgh12345",
		zap.String("stderr", "key sk-ant-api03-abcdefghijklmnop"),
		zap.ByteString("data", []byte("ghp_abcdefghijklmnopqrstuvwxyz0123456789")),
		zap.Error(errors.New("dial https://u:hunter2hunter2@host failed")),
		zap.Any("evidence", map[string]string{"err": token}),
		zap.String("data_dir", "/home/alice/.local/share/orchestratord"),
		zap.Int("n", 3))
	entries := logs.AllUntimed()
	if len(entries) != 1 {
		t.Fatalf("%d entries", len(entries))
	}
	var all strings.Builder
	all.WriteString(entries[0].Message)
	for k, v := range entries[0].ContextMap() {
		all.WriteString(" " + k + "=")
		all.WriteString(fmt.Sprint(v))
	}
	got := all.String()
	for _, leak := range []string{token, "abcdefgh12345", "sk-ant-api03", "ghp_abc", "hunter2"} {
		if strings.Contains(got, leak) {
			t.Errorf("log leaks %q: %s", leak, got)
		}
	}
	for _, keep := range []string{"/home/alice/.local/share/orchestratord", "n=3"} {
		if !strings.Contains(got, keep) {
			t.Errorf("log lost %q: %s", keep, got)
		}
	}
}
