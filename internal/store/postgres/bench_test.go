package postgres_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
	"github.com/orchestratord/orchestratord/internal/store/pgtest"
	"github.com/orchestratord/orchestratord/internal/store/postgres"
	"github.com/orchestratord/orchestratord/internal/store/storetest"
)

// BenchmarkStores runs the same store benchmarks on SQLite and on
// PostgreSQL, side by side (make bench-stores prints them as a table).
// PostgreSQL runs on a durable local cluster (fsync on, the server's
// default synchronous_commit=on: every commit waits for its WAL flush),
// and again with synchronous_commit=off in the URL, which is what the
// SQLite store's synchronous=NORMAL promises: a crash of the machine may
// lose the last commits, never consistency.
func BenchmarkStores(b *testing.B) {
	results := map[string]map[string]time.Duration{}
	into := func(store string) map[string]time.Duration {
		if results[store] == nil {
			results[store] = map[string]time.Duration{}
		}
		return results[store]
	}
	b.Run("sqlite", func(b *testing.B) {
		storetest.Bench(b, storetest.Factory{Database: func(t testing.TB) func(t testing.TB) storetest.Store {
			dir := t.TempDir()
			return func(t testing.TB) storetest.Store {
				db, err := store.Open(t.Context(), dir)
				require.NoError(t, err)
				t.Cleanup(func() { require.NoError(t, db.Close()) })
				return db
			}
		}}, into("sqlite"))
	})
	for _, tc := range []struct{ name, params string }{
		{"postgres", ""},
		{"postgres-async", "&synchronous_commit=off"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			storetest.Bench(b, storetest.Factory{Database: func(t testing.TB) func(t testing.TB) storetest.Store {
				dsn := pgtest.DSNWith(t, pgtest.Options{Durable: true}) + tc.params
				return func(t testing.TB) storetest.Store {
					db, err := postgres.Open(t.Context(), dsn)
					require.NoError(t, err)
					t.Cleanup(func() { require.NoError(t, db.Close()) })
					return db
				}
			}}, into(tc.name))
		})
	}
	// Printed, not logged: a parent benchmark's log is not shown.
	fmt.Printf("\nstore benchmarks, time per operation (PostgreSQL as a multiple of SQLite):\n\n%s\n",
		table(results, []string{"sqlite", "postgres", "postgres-async"}))
}

// table is the results as Markdown: a row per case, a column per store,
// and each PostgreSQL time as a multiple of SQLite's.
func table(results map[string]map[string]time.Duration, stores []string) string {
	var out strings.Builder
	out.WriteString("| per operation |")
	for _, s := range stores {
		fmt.Fprintf(&out, " %s |", s)
	}
	out.WriteString("\n|---|")
	for range stores {
		out.WriteString("---:|")
	}
	out.WriteString("\n")
	for _, c := range []string{"chunk", "500 writers", "claim", "list 5000 tasks", "release 10000 parked"} {
		fmt.Fprintf(&out, "| %s |", c)
		base := results["sqlite"][c]
		for _, s := range stores {
			d, ok := results[s][c]
			switch {
			case !ok:
				out.WriteString(" – |")
			case s == "sqlite" || base == 0:
				fmt.Fprintf(&out, " %s |", d.Round(time.Microsecond/10))
			default:
				fmt.Fprintf(&out, " %s (%.1f×) |", d.Round(time.Microsecond/10), float64(d)/float64(base))
			}
		}
		out.WriteString("\n")
	}
	return out.String()
}
