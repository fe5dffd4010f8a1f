// Package web holds the browser page, embedded into the binary so the daemon
// serves it with no separate server or build step (wsapi.Config.Static).
//
// The page reads the access token from its own URL (?token=), talks only to
// /ws, and puts all agent text in the DOM with textContent.
package web

import "embed"

// FS is the page: index.html, app.js and style.css at its root.
//
//go:embed index.html app.js style.css
var FS embed.FS
