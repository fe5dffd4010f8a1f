// Package browser holds the end-to-end tests of the web page (web/) in a real
// headless Chromium, driven with chromedp, against the real daemon and its
// mock agent. Each test starts its own daemon (temporary data dir, short
// retry schedules) and its own browser; the package has no non-test code.
//
// The tests need /usr/bin/chromium (Debian's "chromium" package). Without it
// they skip locally and fail in CI (when $CI is set). Screenshots of the retry
// card and the recovery banner are written to $ARTIFACTS_DIR, or to
// artifacts/ at the repository root.
package browser
