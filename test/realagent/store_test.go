package realagent

import (
	"database/sql"
	"encoding/json"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite" // the daemon's own driver, read-only here

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// execution is one row of the daemon's executions table: the sanitised
// evidence of a failed agent run and how it was classified.
type execution struct {
	Attempt        int
	Outcome        string
	Evidence       map[string]any
	Classification map[string]any
	RawEvidence    string
}

// executions reads the failed runs of a session from the daemon's database
// (query-only, so it is safe next to a running daemon).
func executions(t *testing.T, d *daemontest.Daemon, sessionID string) []execution {
	t.Helper()
	dsn := "file:" + filepath.Join(d.DataDir, "orchestratord.db") + "?" + url.Values{
		"_pragma": {"busy_timeout(5000)", "query_only(1)"},
	}.Encode()
	db, err := sql.Open("sqlite", dsn)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT attempt, outcome, coalesce(evidence, ''), coalesce(classification, '')
		FROM executions WHERE session_id = ? ORDER BY started_at, attempt`, sessionID)
	require.NoError(t, err)
	defer rows.Close()
	var out []execution
	for rows.Next() {
		var x execution
		var cls string
		require.NoError(t, rows.Scan(&x.Attempt, &x.Outcome, &x.RawEvidence, &cls))
		_ = json.Unmarshal([]byte(x.RawEvidence), &x.Evidence)
		_ = json.Unmarshal([]byte(cls), &x.Classification)
		out = append(out, x)
	}
	require.NoError(t, rows.Err())
	return out
}
