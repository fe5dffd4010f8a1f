package routingerr

import "strings"

const redacted = "[REDACTED]"

// secretNames are header, field and variable names whose value is a secret
// when a ':' or '=' follows them.
var secretNames = []string{
	"proxy-authorization", "authorization", "x-goog-api-key", "x-api-key", "api-key", "api_key", "apikey",
	"access_token", "refresh_token", "client_secret", "password", "cookie",
}

// nameStart2 is a cheap filter on the first two bytes of secretNames: bit
// (second byte % 64) of the entry of the first byte, both lowercase.
var nameStart2 = func() (t [256]uint64) {
	for _, n := range secretNames {
		t[n[0]] |= 1 << (n[1] % 64)
	}
	return t
}()

func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// sanitizeStart marks the bytes a secret or a home path can start with.
var sanitizeStart = func() (t [256]bool) {
	for _, c := range "sAbB/" {
		t[c] = true
	}
	for _, n := range secretNames {
		t[n[0]] = true
		t[n[0]-'a'+'A'] = true
	}
	return t
}()

// Sanitize removes secrets and personal paths from s so that it can be shown
// and logged: sk-… API keys, Google AIza… keys, bearer tokens, the values of
// Authorization / x-api-key style headers and fields, and home directories
// (/home/alice, /Users/alice, /root become ~). It allocates only when it
// changes something.
func Sanitize(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is already in b
	replace := func(start, end int, with string) {
		if b.Cap() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[done:start])
		b.WriteString(with)
		done = end
	}
	for i := 0; i < len(s); {
		for i < len(s) && !sanitizeStart[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		var end int
		var with string
		switch {
		case c == 's' && wordStart(s, i):
			end, with = apiKey(s, i)
		case c == 'A' && wordStart(s, i):
			end, with = googleKey(s, i)
		case c == '/':
			end, with = homePath(s, i)
		}
		if end == 0 && (c|0x20 == 'b') && wordStart(s, i) {
			end, with = bearer(s, i)
		}
		if end == 0 && i+1 < len(s) && nameStart2[lower(c)]&(1<<(lower(s[i+1])%64)) != 0 && nameStart(s, i) {
			var vs int
			vs, end = secretField(s, i)
			if end > 0 {
				replace(vs, end, redacted)
				i = end
				continue
			}
		}
		if end > 0 {
			replace(i, end, with)
			i = end
			continue
		}
		i++
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// apiKey matches "sk-" followed by at least 8 key characters (OpenAI and
// Anthropic keys, including already-masked ones).
func apiKey(s string, i int) (int, string) {
	if !strings.HasPrefix(s[i:], "sk-") {
		return 0, ""
	}
	j := i + 3
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-' || s[j] == '*') {
		j++
	}
	if j-i-3 < 8 {
		return 0, ""
	}
	return j, "sk-" + redacted
}

// googleKey matches Google API keys: "AIza" and 35 more characters.
func googleKey(s string, i int) (int, string) {
	if !strings.HasPrefix(s[i:], "AIza") {
		return 0, ""
	}
	j := i + 4
	for j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
		j++
	}
	if j-i < 30 {
		return 0, ""
	}
	return j, redacted
}

// bearer matches "Bearer <token>" in any case.
func bearer(s string, i int) (int, string) {
	if !hasPrefixFold(s[i:], "bearer ") {
		return 0, ""
	}
	j := i + len("bearer ")
	for j < len(s) && s[j] == ' ' {
		j++
	}
	k := j
	for k < len(s) && (isAlnum(s[k]) || strings.IndexByte("-._~+/=", s[k]) >= 0) {
		k++
	}
	if k-j < 8 {
		return 0, ""
	}
	return k, s[i:i+len("bearer")] + " " + redacted
}

// secretField matches `name: value`, `name=value` and `"name":"value"` for
// a secret name and returns the span of the value.
func secretField(s string, i int) (vs, ve int) {
	for _, name := range secretNames {
		if !hasPrefixFold(s[i:], name) {
			continue
		}
		j := i + len(name)
		if j < len(s) && isAlnum(s[j]) {
			return 0, 0
		}
		quoted := j < len(s) && s[j] == '"'
		if quoted {
			j++
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j >= len(s) || (s[j] != ':' && s[j] != '=') {
			return 0, 0
		}
		j++
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j < len(s) && s[j] == '"' {
			j++
			k := strings.IndexByte(s[j:], '"')
			if k < 0 {
				k = len(s) - j
			}
			if k == 0 {
				return 0, 0
			}
			return j, j + k
		}
		// "Authorization: Bearer abc": the scheme, then one token.
		k := j
		for _, scheme := range []string{"bearer ", "basic ", "token ", "digest "} {
			if hasPrefixFold(s[k:], scheme) {
				k += len(scheme)
				break
			}
		}
		for k < len(s) && !isSpace(s[k]) && !strings.ContainsRune("&,;'\"", rune(s[k])) {
			k++
		}
		if k == j {
			return 0, 0
		}
		return j, k
	}
	return 0, 0
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// homePath replaces /home/<user>, /Users/<user> and /root with ~.
func homePath(s string, i int) (int, string) {
	if i > 0 {
		p := s[i-1]
		if isAlnum(p) || p == '.' || p == '-' || p == '~' || (p == '/' && !strings.HasSuffix(s[:i], "://")) {
			return 0, ""
		}
	}
	rest := s[i:]
	for _, pre := range []string{"/home/", "/Users/"} {
		if strings.HasPrefix(rest, pre) {
			j := len(pre)
			for j < len(rest) && !isPathEnd(rest[j]) {
				j++
			}
			if j == len(pre) {
				return 0, ""
			}
			return i + j, "~"
		}
	}
	if strings.HasPrefix(rest, "/root") && (len(rest) == 5 || rest[5] == '/' || isPathEnd(rest[5])) {
		return i + 5, "~"
	}
	return 0, ""
}

func isPathEnd(b byte) bool {
	return b == '/' || strings.IndexByte(" \t\n\r\"'`):,;]}>", b) >= 0
}

func isLetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }

// wordStart: s[i] does not continue a word.
func wordStart(s string, i int) bool { return i == 0 || !isAlnum(s[i-1]) }

// nameStart: like wordStart, but "ANTHROPIC_API_KEY" may start at "API".
func nameStart(s string, i int) bool {
	return i == 0 || !(isLetter(s[i-1]) || isDigit(s[i-1]))
}

func hasPrefixFold(s, lowerPrefix string) bool {
	if len(s) < len(lowerPrefix) {
		return false
	}
	for i := 0; i < len(lowerPrefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowerPrefix[i] {
			return false
		}
	}
	return true
}
