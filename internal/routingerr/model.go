package routingerr

import "strings"

// The model a failure names. The overload gate is keyed by agent profile and
// model (overload.Key), so an overloaded model does not hold back sessions of
// the same agent on a healthy one. Only explicit forms are read, and a value
// is kept only when it looks like a model id: the key is shown in gate.list,
// logged and stored, so it must never carry a path or a secret.

// maxModelLen bounds a model id; longer values are not ids (or are resource
// names, whose last "models/" segment is read instead).
const maxModelLen = 64

// modelTries bounds the occurrences of one form that are inspected (each
// reads at most a few hundred bytes), so text repeating a keyword stays cheap.
const modelTries = 8

// modelForm is one way provider errors name a model: a keyword, and a reader
// of the value that follows it (i is the offset just after the keyword).
type modelForm struct {
	k    *kw
	read func(raw string, i int) (string, bool)
}

var modelForms = []modelForm{
	{newKW("model `"), readBackticked},    // OpenAI: The model `gpt-4o` is currently overloaded
	{newKW(`"model"`), readJSONModel},     // error bodies: "model":"claude-sonnet-4-5", "model": "…"
	{newKW("model id "), readBareModel},   // Bedrock: Invocation of model ID anthropic.claude-…-v1:0
	{newKW("model: "), readBareModel},     // Anthropic, Vertex: (…, model: claude-opus-4-1)
	{newKW("models/"), readResourceName},  // Gemini: models/gemini-2.5-pro is overloaded, …/models/x:streamGenerateContent
	{newKW("the model "), readProseModel}, // Gemini: The model gemini-2.5-flash is overloaded
}

// modelOf returns the model the evidence names: Evidence.Model when it is a
// plausible id, else the earliest form in the text (message, data and error
// come before stderr there). Texts without a model keyword cost one bit test
// per form.
func (s *scan) modelOf() string {
	if m := strings.TrimSpace(s.ev.Model); validModel(m) {
		return m
	}
	best, at := "", -1
	for i := range modelForms {
		f := &modelForms[i]
		if !s.hasKW(f.k) {
			continue
		}
		off := 0
		for range modelTries {
			j := strings.Index(s.low[off:], f.k.w)
			if j < 0 || at >= 0 && off+j >= at {
				break
			}
			j += off
			off = j + 1
			if m, ok := f.read(s.raw, j+len(f.k.w)); ok {
				best, at = m, j
				break
			}
		}
	}
	return best
}

// readBackticked: `id`.
func readBackticked(raw string, i int) (string, bool) {
	return readQuoted(raw, i, '`')
}

// readJSONModel: a string value after the key, `: "id"`.
func readJSONModel(raw string, i int) (string, bool) {
	i = skipSpaces(raw, i)
	if i >= len(raw) || raw[i] != ':' {
		return "", false
	}
	i = skipSpaces(raw, i+1)
	if i >= len(raw) || raw[i] != '"' {
		return "", false
	}
	return readQuoted(raw, i+1, '"')
}

// readBareModel: an id, optionally quoted.
func readBareModel(raw string, i int) (string, bool) {
	if i < len(raw) && (raw[i] == '"' || raw[i] == '\'' || raw[i] == '`') {
		return readQuoted(raw, i+1, raw[i])
	}
	id, _, ok := readID(raw, i)
	return id, ok
}

// readResourceName: the id after "models/", where ':' starts a method
// (":streamGenerateContent") rather than continuing the id.
func readResourceName(raw string, i int) (string, bool) {
	j := i
	for j < len(raw) && j-i <= maxModelLen && isModelByte(raw[j]) && raw[j] != ':' && raw[j] != '/' {
		j++
	}
	if j < len(raw) && raw[j] != ':' && !isIDEnd(raw[j]) {
		return "", false // "models/a/b", "models/x?y", or too long
	}
	id := strings.TrimRight(raw[i:j], ".")
	return id, validModel(id)
}

// readProseModel: "the model <id> is …". Prose names many things "the
// model", so the value must look versioned (a digit or a '-') and be
// followed by a verb: "The model is overloaded" names none.
func readProseModel(raw string, i int) (string, bool) {
	id, j, ok := readID(raw, i)
	if !ok || !strings.ContainsAny(id, "0123456789-") {
		return "", false
	}
	rest := raw[skipSpaces(raw, j):]
	for _, verb := range []string{"is ", "was ", "has ", "does ", "cannot "} {
		if hasPrefixFold(rest, verb) {
			return id, true
		}
	}
	return "", false
}

// readQuoted reads an id closed by q.
func readQuoted(raw string, i int, q byte) (string, bool) {
	j := i
	for j < len(raw) && j-i <= 4*maxModelLen && raw[j] != q {
		if !isModelByte(raw[j]) {
			return "", false
		}
		j++
	}
	if j >= len(raw) || raw[j] != q {
		return "", false
	}
	id := raw[i:j]
	if k := strings.LastIndex(id, "models/"); k >= 0 {
		// A resource name, "projects/p/locations/l/publishers/x/models/id":
		// only the last segment is the model (the rest names an account).
		id, _, _ = strings.Cut(id[k+len("models/"):], ":")
	}
	return id, validModel(id)
}

// readID reads an id at raw[i:] that ends where a word ends; sentence
// punctuation after it ("…-v2.", "…:") is not part of it. It returns the
// offset after the id.
func readID(raw string, i int) (string, int, bool) {
	j := i
	for j < len(raw) && j-i <= maxModelLen+1 && isModelByte(raw[j]) {
		j++
	}
	if j < len(raw) && !isIDEnd(raw[j]) {
		return "", 0, false // "model: a=b", "model: ${MODEL}", or too long
	}
	id := strings.TrimRight(raw[i:j], ".:")
	return id, j, validModel(id)
}

// validModel: 2..64 id bytes (letters, digits, . - _ : / @) with a letter,
// starting and ending with a letter or digit; not a placeholder, not a
// path or file name, and nothing Sanitize would hide.
func validModel(id string) bool {
	if len(id) < 2 || len(id) > maxModelLen || !isAlnum(id[0]) || !isAlnum(id[len(id)-1]) {
		return false
	}
	letter := false
	for i := 0; i < len(id); i++ {
		b := id[i]
		if !isModelByte(b) {
			return false
		}
		letter = letter || isLetter(b)
	}
	if !letter || strings.Contains(id, "//") || strings.Contains(id, "..") || fileLike(id) {
		return false
	}
	switch strings.ToLower(id) {
	case "undefined", "null", "nil", "none", "unknown", "default", "auto", "model", "models":
		return false
	}
	return Sanitize(id) == id
}

// fileLike: a name ending in a short all-letter extension ("user.go",
// "config.yaml") is a file, not a model ("gemini-2.5-pro", "…-v1:0").
func fileLike(id string) bool {
	dot := strings.LastIndexByte(id, '.')
	if dot < 0 || len(id)-dot-1 > 4 {
		return false
	}
	for i := dot + 1; i < len(id); i++ {
		if !isLetter(id[i]) {
			return false
		}
	}
	return true
}

func isModelByte(b byte) bool {
	return isAlnum(b) || b == '.' || b == '-' || b == ':' || b == '/' || b == '@'
}

// isIDEnd: bytes that may follow an id in text.
func isIDEnd(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';', ')', ']', '}', '>':
		return true
	}
	return false
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}
