// Package web holds the browser page, embedded into the binary so the daemon
// serves it with no separate server or build step (wsapi.Config.Static).
//
// The page reads the access token from its own URL (?token=), talks only to
// /ws, and puts all agent text in the DOM with textContent.
package web

import (
	"embed"
	"io/fs"
)

//go:embed index.html app.js style.css
var files embed.FS

// Static returns the page: index.html, app.js and style.css at its root.
func Static() fs.FS { return files }
