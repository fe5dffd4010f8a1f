// Package web holds the browser page, embedded into the binary so the daemon
// serves it with no separate server or build step (wsapi.Config.Static).
//
// The page is plain ES modules (app.js imports the rest), read the access
// token from its own URL (?token=), talk only to /ws, and build every node
// themselves: agent text is never parsed as HTML. The browser tests in
// test/browser drive it in a real Chromium against the real daemon.
package web

import (
	"embed"
	"io/fs"
)

//go:embed index.html *.css favicon.ico *.js
var files embed.FS

// Static returns the page: index.html, the style sheets and the script modules at its root.
func Static() fs.FS { return files }
