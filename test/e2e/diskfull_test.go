package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orchestratord/orchestratord/test/daemontest"
)

// A real full disk (a small tmpfs; skipped where mount(2) is not allowed):
// the reply that cannot be saved stops with the "could not save" banner,
// /healthz is green again once space is freed, and Resume answers.
func TestDiskFullDuringAReplyFailsTheTurnVisibly(t *testing.T) {
	disk := t.TempDir()
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v): the full-disk test needs root and mount(2); internal/orchestrator covers the same paths with injected faults", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(disk, syscall.MNT_DETACH) })
	d := daemontest.Start(t, filepath.Join(disk, "data"))
	c := daemontest.Dial(t, d)
	s := daemontest.CreateTask(t, c, map[string]any{"prompt": "/slow:8000 take your time"})
	first := s.Until(20*time.Second, func(e daemontest.Event) bool {
		m := e.Body().Message
		return e.Action == "session.message.added" && m != nil && m.Role == "agent"
	})
	filler := fillDisk(t, disk)

	sent := first.Body().Message.Text
	var done, bannerEv daemontest.Event
	for {
		e := s.Next(20 * time.Second)
		sent += e.Body().Delta
		if daemontest.IsBanner(e) {
			bannerEv = e // the banner comes before the failed turn's end
		}
		if daemontest.TurnDone(e) {
			done = e
			break
		}
	}
	if got := done.Body().StopReason; got != "failed" {
		t.Fatalf("turn ended %q with the disk full; want failed", got)
	}
	if bannerEv.Action == "" {
		t.Fatal("the failed turn ended before its banner")
	}
	banner := bannerEv.Body().Message
	if banner.Metadata["reason"] != "store_failed" || !strings.Contains(banner.Text, "disk is full") {
		t.Fatalf("banner %q (%v); want the could-not-save banner naming the full disk", banner.Text, banner.Metadata)
	}
	if strings.Contains(sent, "step 10/10") {
		t.Fatalf("the reply ran to its end on a full disk: %q", sent)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, body := d.Get(t, "/healthz", false)
		if status == 200 {
			break
		}
		if status != 503 || !strings.Contains(body, "store_unwritable") || time.Now().After(deadline) {
			t.Fatalf("/healthz = %d %s after space was freed", status, body)
		}
		time.Sleep(200 * time.Millisecond) // polling the daemon's own 5s probe, not a backoff
	}

	// What the client saw is what the store holds: no hole.
	snap := s.Snapshot()
	var agentText string
	for _, m := range snap.Messages {
		if m.Role == "agent" {
			agentText = m.Text
		}
	}
	if agentText != sent {
		t.Fatalf("stored reply %q, sent %q", agentText, sent)
	}
	c.Call("session.recover", map[string]any{"task_id": s.TaskID, "session_id": s.ID, "action": "resume"})
	s.Until(30*time.Second, func(e daemontest.Event) bool { return daemontest.TurnDone(e) && e.Body().StopReason == "end_turn" })
	d.Stop(t)
}

// fillDisk takes every free byte of dir's file system.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	return path
}
