package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// smallDisk mounts a tmpfs of size (e.g. "2m") on a fresh directory, or
// skips the test where mounting is not possible (not root, no mount
// namespace): the fault-injecting tests in internal/orchestrator cover the
// same paths without a real disk.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a %s tmpfs here (%v); a real full disk needs root and mount(2)", size, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// fill writes a file that takes all but about keep bytes of dir's file system.
func fill(t *testing.T, dir string, keep int64) string {
	t.Helper()
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dir, &st))
	free := int64(st.Bavail) * st.Bsize
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	buf := make([]byte, 64<<10)
	for left := free - keep; left > 0; left -= int64(len(buf)) {
		n := min(int64(len(buf)), left)
		if _, err := f.Write(buf[:n]); err != nil {
			break
		}
	}
	return path
}

func TestDiskFullIsReportedAndRecovers(t *testing.T) {
	disk := smallDisk(t, "4m")
	db, err := store.OpenWith(t.Context(), filepath.Join(disk, "data"), store.Options{ManualMaintenance: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	ctx := t.Context()
	seed(t, db, "t1", "s1")
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", 1, "session.message.added", nil),
		UpsertMessage: &store.Message{ID: "a1", SessionID: "s1", Role: "agent"}}))
	require.True(t, db.WriteHealth().Writable)

	filler := fill(t, disk, 64<<10)
	chunk := strings.Repeat("x", 8<<10)
	var werr error
	seq := int64(2)
	for ; seq < 10_000; seq++ {
		werr = db.AppendEvent(ctx, store.EventWrite{Event: event("s1", seq, "session.message.updated", map[string]string{"d": chunk}),
			AppendText: &store.TextAppend{MessageID: "a1", Delta: chunk}})
		if werr != nil {
			break
		}
	}
	require.Error(t, werr, "the disk never filled")
	require.ErrorIs(t, werr, store.ErrUnwritable)
	h := db.WriteHealth()
	require.False(t, h.Writable)
	require.ErrorContains(t, h.LastError, "full")
	require.False(t, h.ErrorAt.IsZero())
	require.Positive(t, h.Failures)

	// Space is freed: the next step probes, and health recovers with no
	// other write.
	require.NoError(t, os.Remove(filler))
	require.NoError(t, db.Maintain(ctx))
	h = db.WriteHealth()
	require.True(t, h.Writable, "last error %v", h.LastError)
	require.Zero(t, h.Failures)
	require.Error(t, h.LastError, "the last error is kept for the record")
	st, err := os.Stat(filepath.Join(disk, "data", store.FileName+"-wal"))
	require.NoError(t, err)
	require.Less(t, st.Size(), int64(64<<10), "WAL truncated, then the probe's few pages")

	// Writes work again, at the seq that failed: nothing of it landed.
	require.NoError(t, db.AppendEvent(ctx, store.EventWrite{Event: event("s1", seq, "session.message.updated", nil),
		AppendText: &store.TextAppend{MessageID: "a1", Delta: "!"}}))
}

func TestRefusedWritesAreNotStorageFaults(t *testing.T) {
	t.Parallel()
	db := newStore(t)
	seed(t, db, "t1", "s1")
	err := db.AppendEvent(t.Context(), store.EventWrite{Event: event("s1", 5, "x", nil)})
	require.ErrorIs(t, err, store.ErrSeqConflict)
	require.False(t, errors.Is(err, store.ErrUnwritable))
	require.True(t, db.WriteHealth().Writable)
}

func TestIdleWALIsCheckpointedToNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := store.OpenWith(t.Context(), dir, store.Options{ManualMaintenance: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	seed(t, db, "t1", "s1")
	wal := filepath.Join(dir, store.FileName+"-wal")
	st, err := os.Stat(wal)
	require.NoError(t, err)
	require.Positive(t, st.Size())
	require.NoError(t, db.Checkpoint(t.Context()))
	st, err = os.Stat(wal)
	require.NoError(t, err)
	require.Zero(t, st.Size())
}

// Opening on a full disk says so in plain words, and leaves the file be.
func TestOpenOnAFullDiskSaysSo(t *testing.T) {
	disk := smallDisk(t, "4m")
	dir := filepath.Join(disk, "data")
	db, err := store.Open(t.Context(), dir)
	require.NoError(t, err)
	seed(t, db, "t1", "s1")
	require.NoError(t, db.Close()) // the last connection removes -wal and -shm
	filler := fill(t, disk, 0)
	_, err = store.Open(t.Context(), dir)
	require.ErrorIs(t, err, store.ErrUnwritable)
	require.ErrorContains(t, err, "free space")
	require.NoError(t, os.Remove(filler))
	db = openStore(t, dir)
	_, err = db.GetTask(t.Context(), "t1")
	require.NoError(t, err)
}
