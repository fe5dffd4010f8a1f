// Command orchestratord runs AI coding agents over ACP, streams their work to
// a browser, and keeps sessions alive through transient provider failures.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		var ec exitCodeError
		if errors.As(err, &ec) {
			os.Exit(int(ec))
		}
		fmt.Fprintln(os.Stderr, "orchestratord:", err)
		os.Exit(1)
	}
}

// exitCodeError ends the process with a code and no extra message.
type exitCodeError int

func (e exitCodeError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func run(ctx context.Context, args []string) error {
	root := &cobra.Command{
		Use:           "orchestratord",
		Short:         "Run AI coding agents over ACP and ride out provider failures",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCmd(), newMigrateStoreCmd(), newClassifyCmd(), newMockAgentCmd(), newVersionCmd())
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "orchestratord", version)
			return err
		},
	}
}
