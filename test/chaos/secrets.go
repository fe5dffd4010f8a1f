package chaos

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the daemon's own driver, to read its database

	"github.com/orchestratord/orchestratord/internal/store"
)

// secret is one planted credential: line is what the agent emits, needle
// the part that must never be found (the random body a redactor must hide).
type secret struct {
	kind, line, needle string
}

func randString(alphabet string, n int) string {
	var b strings.Builder
	for range n {
		i, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b.WriteByte(alphabet[i.Int64()])
	}
	return b.String()
}

const (
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	alnum       = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits      = "0123456789"
)

// plantSecrets makes this run's fake credentials (fresh random bodies, so a
// find is never a fixture) and the daemon's own token.
func plantSecrets(token string) []secret {
	aws := randString(upperDigits, 16)
	awsSecret := randString(alnum, 40)
	gh := randString(alnum, 36)
	slack := randString(alnum, 24)
	stripe := randString(alnum, 24)
	pw := randString(alnum, 16)
	tok := randString(alnum, 24)
	return []secret{
		{"aws-access-key", "AKIA" + aws, "AKIA" + aws},
		{"aws-secret-key", "aws_secret_access_key=" + awsSecret, awsSecret},
		{"github-token", "ghp_" + gh, gh},
		{"slack-token", "xoxb-" + randString(digits, 12) + "-" + randString(digits, 13) + "-" + slack, slack},
		{"stripe-key", "sk_live_" + stripe, stripe},
		{"url-password", "https://deploy:" + pw + "@git.example.com/repo.git", pw},
		{"token-field", "token=" + tok, tok},
		// Last: the mock also sends it as the bearer of its error data.
		{"daemon-token", token, token},
	}
}

func secretLines(ss []secret) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.line
	}
	return out
}

// found returns the kinds of the secrets in text.
func found(ss []secret, text string) []string {
	var kinds []string
	for _, s := range ss {
		if strings.Contains(text, s.needle) {
			kinds = append(kinds, s.kind)
		}
	}
	return kinds
}

// scanDB reads every row of every table of the daemon's database (through
// a read-only connection beside the running daemon) and reports where a
// planted secret is: "table: kinds".
func scanDB(ctx context.Context, dataDir string, ss []secret) ([]string, error) {
	path := filepath.Join(dataDir, store.FileName)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, n)
	}
	rows.Close()
	var hits []string
	for _, t := range tables {
		kinds, err := scanTable(ctx, db, t, ss)
		if err != nil {
			return nil, err
		}
		if len(kinds) > 0 {
			hits = append(hits, t+": "+strings.Join(kinds, ", "))
		}
	}
	return hits, nil
}

func scanTable(ctx context.Context, db *sql.DB, table string, ss []secret) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM "`+strings.ReplaceAll(table, `"`, `""`)+`"`)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	kinds := map[string]bool{}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		for _, v := range vals {
			var text string
			switch v := v.(type) {
			case string:
				text = v
			case []byte:
				text = string(v)
			default:
				continue
			}
			for _, k := range found(ss, text) {
				kinds[k] = true
			}
		}
	}
	var out []string
	for _, s := range ss {
		if kinds[s.kind] {
			out = append(out, s.kind)
		}
	}
	return out, rows.Err()
}
