package pgtest

import (
	"errors"
	"testing"
)

// fakeT records how a test ended.
type fakeT struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (f *fakeT) Helper()                           {}
func (f *fakeT) Skipf(format string, args ...any)  { f.skipped, f.msg = true, format }
func (f *fakeT) Fatalf(format string, args ...any) { f.failed, f.msg = true, format }

// Without PostgreSQL a developer's run skips the PostgreSQL half, saying
// why; CI (or ORCHESTRATORD_REQUIRE_POSTGRES) fails instead.
func TestMissingPostgresSkipsUnlessRequired(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	old := binGlob
	binGlob = "/nonexistent/postgresql/*/bin"
	defer func() { binGlob = old }()
	_, err := FindBin()
	if !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("FindBin without PostgreSQL: %v, want ErrNotInstalled", err)
	}

	t.Setenv("CI", "")
	t.Setenv("ORCHESTRATORD_REQUIRE_POSTGRES", "")
	dev := &fakeT{TB: t}
	skipOrFail(dev, err)
	if !dev.skipped || dev.failed {
		t.Fatalf("a developer's run: skipped %v failed %v, want a skip", dev.skipped, dev.failed)
	}
	t.Setenv("CI", "true")
	ci := &fakeT{TB: t}
	skipOrFail(ci, err)
	if !ci.failed || ci.skipped {
		t.Fatalf("CI: skipped %v failed %v, want a failure", ci.skipped, ci.failed)
	}
	// PostgreSQL installed but not starting is a failure everywhere.
	t.Setenv("CI", "")
	broken := &fakeT{TB: t}
	skipOrFail(broken, errors.New("pgtest: initdb: exit status 1"))
	if !broken.failed {
		t.Fatal("a cluster that would not start must fail the test")
	}
}
