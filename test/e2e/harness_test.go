// Package e2e drives the built orchestratord binary over its WebSocket API:
// real agent processes, a real SQLite file, real signals.
package e2e

import (
	"testing"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

func TestMain(m *testing.M) { daemontest.Main(m, true) }
