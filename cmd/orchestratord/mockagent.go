package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/orchestratord/orchestratord/internal/mockagent"
)

// newMockAgentCmd is `orchestratord mock-agent`: the built-in test agent.
// stdout carries the ACP protocol, so logs go to stderr only.
func newMockAgentCmd() *cobra.Command {
	var (
		stateDir      string
		noLoadSession bool
		model         string
		models        string
	)
	cmd := &cobra.Command{
		Use:   "mock-agent",
		Short: "Run the built-in ACP mock agent on stdin/stdout (failure scenarios for tests and demos)",
		Long: "Run the built-in ACP mock agent on stdin/stdout. Prompts starting with /overloaded[:N],\n" +
			"/conn-closed[:N], /rate-limit[:N[:SECS]], /usage-limit, /auth, /too-long, /crash[:N],\n" +
			"/slow[:MS], /tool or /wall (a 529 while STATE_DIR/wall.json says {\"up\":true}) play a\n" +
			"scenario; anything else is echoed back.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("state-dir") {
				if v := os.Getenv("ORCHESTRATORD_MOCK_STATE_DIR"); v != "" {
					stateDir = v
				}
			}
			log := newStderrLogger()
			defer func() { _ = log.Sync() }()
			err := mockagent.Run(cmd.Context(), os.Stdin, os.Stdout, mockagent.Config{
				StateDir:      stateDir,
				NoLoadSession: noLoadSession,
				Model:         model,
				Models:        models,
				Logger:        log,
			})
			if errors.Is(err, mockagent.ErrCrash) {
				log.Warn("crash scenario: exiting with status 1")
				_ = log.Sync()
				os.Exit(1) // a crashing agent does not shut down cleanly
			}
			return err
		},
	}
	cmd.Flags().StringVar(&stateDir, "state-dir", mockagent.DefaultStateDir(),
		"directory for session history and failure counters (env ORCHESTRATORD_MOCK_STATE_DIR)")
	cmd.Flags().BoolVar(&noLoadSession, "no-load-session", false, "do not advertise session/load")
	cmd.Flags().StringVar(&model, "model", "", "the model this agent stands for: a wall.json with \"models\" stands only for those")
	cmd.Flags().StringVar(&models, "models", "", "how sessions report their model: \"\" (a config option and the models state), models, options or none")
	return cmd
}

func newStderrLogger() *zap.Logger {
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	core := zapcore.NewCore(enc, zapcore.Lock(os.Stderr), zapcore.InfoLevel)
	return zap.New(core).Named("mock-agent")
}
