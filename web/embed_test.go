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

func scripts(t *testing.T) []string {
	t.Helper()
	names, err := fs.Glob(Static(), "*.js")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded scripts: %v", err)
	}
	return names
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

// Every module app.js imports (directly or not) must be embedded.
func TestImportsAreEmbedded(t *testing.T) {
	imp := regexp.MustCompile(`(?m)^import [^;]* from '\./([\w.-]+)';`)
	for _, name := range scripts(t) {
		for _, m := range imp.FindAllStringSubmatch(read(t, name), -1) {
			if _, err := fs.Stat(Static(), m[1]); err != nil {
				t.Errorf("%s imports %s, which is not embedded", name, m[1])
			}
		}
	}
}

// Agent output must never be parsed as HTML, nor run as code.
func TestScriptNeverInjectsHTML(t *testing.T) {
	bad := regexp.MustCompile(`\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|\beval\(|new Function\(|createContextualFragment|DOMParser|setAttribute\(\s*['"]on`)
	for _, name := range scripts(t) {
		if m := bad.FindString(read(t, name)); m != "" {
			t.Errorf("%s uses %s; build nodes and set textContent instead", name, m)
		}
	}
	index := read(t, "index.html")
	if regexp.MustCompile(`<script(\s+type="module")?>`).MatchString(index) || strings.Contains(index, "style=") || strings.Contains(index, "<style") {
		t.Error("index.html has an inline script or style; the CSP (script-src 'self'; style-src 'self') would block it")
	}
}

// index.html preloads every module, so the browser fetches them at once
// rather than one import level at a time (the first load stays fast).
func TestModulesArePreloaded(t *testing.T) {
	index := read(t, "index.html")
	for _, name := range scripts(t) {
		if name == "app.js" {
			continue
		}
		if !strings.Contains(index, `<link rel="modulepreload" href="`+name+`">`) {
			t.Errorf("index.html does not preload %s (add <link rel=\"modulepreload\" href=\"%s\">)", name, name)
		}
	}
}
