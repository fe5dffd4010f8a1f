package web

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(Static(), name)
	if err != nil {
		t.Fatalf("embedded %s: %v", name, err)
	}
	return string(b)
}

func TestPageIsEmbedded(t *testing.T) {
	index := read(t, "index.html")
	for _, ref := range []string{`src="app.js"`, `href="style.css"`} {
		if !strings.Contains(index, ref) {
			t.Errorf("index.html does not reference %s", ref)
		}
	}
	if read(t, "style.css") == "" {
		t.Error("style.css is empty")
	}
}

// Agent output must never be parsed as HTML, nor run as code.
func TestScriptNeverInjectsHTML(t *testing.T) {
	js := read(t, "app.js")
	bad := regexp.MustCompile(`\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|\beval\(|new Function\(`)
	if m := bad.FindString(js); m != "" {
		t.Errorf("app.js uses %s; build nodes and set textContent instead", m)
	}
	if strings.Contains(read(t, "index.html"), "<script>") {
		t.Error("index.html has an inline script; the CSP (script-src 'self') would block it")
	}
}
