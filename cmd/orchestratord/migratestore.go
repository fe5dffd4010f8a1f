package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orchestratord/orchestratord/internal/datadir"
	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
)

func newMigrateStoreCmd() *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "migrate-store --from sqlite:DATA_DIR --to postgres://…",
		Short: "Copy everything from a data dir's SQLite store into an empty PostgreSQL database",
		Long: `Copies every task, session, event, message, execution, pending retry and open
overload gate from the SQLite store of a data dir into a PostgreSQL database,
in one transaction, then verifies the counts and every session's last seq.
The target must be empty (a fresh database, or one this command never
finished writing to); the source is only read. Stop the daemon first: the
data dir's lock is taken for the copy. Afterwards start the daemon with
--store set to the same URL (the data dir still holds the token and the
task workspaces).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return migrateStore(cmd.Context(), from, to, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "source: sqlite:DATA_DIR")
	cmd.Flags().StringVar(&to, "to", "", "target: a postgres:// URL of an empty database")
	_ = cmd.MarkFlagRequired("from")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

func migrateStore(ctx context.Context, from, to string, out io.Writer) error {
	dir, ok := strings.CutPrefix(from, "sqlite:")
	if !ok || dir == "" {
		return fmt.Errorf("--from must be sqlite:DATA_DIR, got %q", from)
	}
	if !postgres.IsURL(to) {
		return fmt.Errorf("--to must be a postgres:// URL, got %q", redactStore(to))
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, err := filepath.EvalSymlinks(filepath.Join(dir, store.FileName)); err != nil {
		return fmt.Errorf("--from: no SQLite store in %s: %w", dir, err)
	}
	// No daemon may write to the source while it is copied.
	lock, err := datadir.Acquire(dir)
	if err != nil {
		return err
	}
	defer func() { _ = lock.Close() }()
	src, err := store.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }()
	dst, err := postgres.Open(ctx, to)
	if err != nil {
		return err
	}
	defer func() { _ = dst.Close() }()
	n, err := postgres.Import(ctx, dst, src)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "Copied %s from %s to %s and verified them.\n"+
		"Start the daemon with --store set to that URL (and the same --data-dir: it keeps the token and the workspaces).\n",
		n, src.Path(), dst.Name())
	return err
}
