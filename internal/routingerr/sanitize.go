package routingerr

import (
	"strings"
	"sync"
	"sync/atomic"
)

const redacted = "[REDACTED]"

// Redacted is what Sanitize puts where a secret was.
const Redacted = redacted

// secretNames are header, field and variable names whose value is a secret
// when a ':' or '=' follows them. A name that is the prefix of another comes
// after it.
var secretNames = []string{
	"proxy-authorization", "authorization", "x-goog-api-key", "x-api-key", "api-key", "api_key", "apikey",
	"access_token", "refresh_token", "session_token", "auth_token", "api_token", "id_token", "token",
	"aws_secret_access_key", "secret_access_key", "client_secret", "secret_key", "secret",
	"private_key", "password", "passwd", "cookie",
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

// sanitizeStart marks the bytes a secret or a home path can start with:
// startAnywhere for ':' (a URL's password), '-' (a PEM block) and '/' (a
// home path); startAtName for letters, which only start a key, a token or
// a secret's name where no letter or digit comes before them. Most bytes
// of an error text are letters inside words, so the scan passes over them
// with one table test and one look back, and only word starts are tried.
const (
	startNever uint8 = iota
	startAtName
	startAnywhere
)

var sanitizeStart = func() (t [256]uint8) {
	for _, c := range "sSAbBgxrRe" {
		t[c] = startAtName
	}
	for _, n := range secretNames {
		t[n[0]] = startAtName
		t[n[0]-'a'+'A'] = startAtName
	}
	for _, c := range "/:-" {
		t[c] = startAnywhere
	}
	return t
}()

// letterOrDigit is isLetter(b) || isDigit(b) as a table.
var letterOrDigit = func() (t [256]bool) {
	for b := range 256 {
		t[b] = isLetter(byte(b)) || isDigit(byte(b))
	}
	return t
}()

// registered holds exact secrets of this process (RegisterSecret), redacted
// wherever they appear.
var (
	registeredMu sync.Mutex // serialises RegisterSecret
	registered   atomic.Pointer[[]string]
)

// minRegistered is the shortest secret RegisterSecret accepts: shorter ones
// would redact ordinary words.
const minRegistered = 8

// RegisterSecret makes Sanitize redact s wherever it appears, e.g. the
// daemon's own access token. Strings shorter than 8 bytes are ignored.
func RegisterSecret(s string) {
	s = strings.TrimSpace(s)
	if len(s) < minRegistered {
		return
	}
	registeredMu.Lock()
	defer registeredMu.Unlock()
	var next []string
	if p := registered.Load(); p != nil {
		for _, x := range *p {
			if x == s {
				return
			}
		}
		next = append(next, *p...)
	}
	next = append(next, s)
	registered.Store(&next)
}

// Sanitize removes secrets and personal paths from s so that it can be
// stored, shown and logged: API keys (sk-…/SK-…, Google AIza…, AWS
// AKIA…/ASIA…, GitHub ghp_…/github_pat_…, Slack xox…-, Stripe sk_live_…),
// JWTs, bearer tokens, the values of Authorization / x-api-key / token= /
// password= style headers and fields, passwords in URLs, PEM private-key
// blocks, every secret given to RegisterSecret, and home directories
// (/home/alice, /Users/alice, /root become ~). It allocates only when it
// changes something.
func Sanitize(s string) string {
	out, _ := sanitize(s, true)
	return out
}

// RedactSecrets is Sanitize without the home-path rewriting: for logs,
// where an operator needs the real paths.
func RedactSecrets(s string) string {
	out, _ := sanitize(s, false)
	return out
}

// ContainsSecret reports whether s holds something Sanitize would redact as
// a secret (home paths do not count). Text that Sanitize returned never
// does. For checks such as "nothing secret in the database".
func ContainsSecret(s string) bool {
	_, found := sanitize(s, false)
	return found
}

// sanitize returns s with its secrets (and, with paths, home directories)
// replaced, and whether a secret was found.
func sanitize(s string, paths bool) (string, bool) {
	found := false
	if p := registered.Load(); p != nil {
		for _, secret := range *p {
			if strings.Contains(s, secret) {
				s = strings.ReplaceAll(s, secret, redacted)
				found = true
			}
		}
	}
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
		for i < len(s) {
			if k := sanitizeStart[s[i]]; k == startAnywhere || k == startAtName && (i == 0 || !letterOrDigit[s[i-1]]) {
				break
			}
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		start, end, with := i, 0, ""
		ws := wordStart(s, i)
		switch {
		case (c == 's' || c == 'S') && ws:
			if end, with = apiKey(s, i); end == 0 {
				end, with = stripeKey(s, i)
			}
		case c == 'A' && ws:
			end, with = googleKey(s, i)
			if end == 0 {
				end, with = awsKeyID(s, i)
			}
		case c == 'g' && ws:
			end, with = githubToken(s, i)
		case c == 'x' && ws:
			end, with = slackToken(s, i)
		case (c == 'r' || c == 'R') && ws:
			end, with = stripeKey(s, i)
		case c == 'e' && ws:
			end, with = jwt(s, i)
		case c == ':':
			start, end = urlPassword(s, i)
			with = redacted
		case c == '-':
			start, end, with = pemBlock(s, i)
		case c == '/' && paths:
			if end, with = homePath(s, i); end > 0 {
				replace(i, end, with)
				i = end
				continue
			}
		}
		if end == 0 && (c|0x20 == 'b') && ws {
			end, with = bearer(s, i)
		}
		if end == 0 && i+1 < len(s) && nameStart2[lower(c)]&(1<<(lower(s[i+1])%64)) != 0 && nameStart(s, i) {
			start, end = secretField(s, i)
			with = redacted
		}
		if end > 0 {
			if s[start:end] != with && s[start:end] != redacted {
				found = true
			}
			replace(start, end, with)
			i = end
			continue
		}
		i++
	}
	if done == 0 {
		return s, found
	}
	b.WriteString(s[done:])
	return b.String(), found
}

func isKeyChar(b byte) bool { return isAlnum(b) || b == '-' }

// run returns the end of the run of key characters from j.
func run(s string, j int, ok func(byte) bool) int {
	for j < len(s) && ok(s[j]) {
		j++
	}
	return j
}

// apiKey matches "sk-" (in either case) followed by at least 8 key
// characters (OpenAI and Anthropic keys, including already-masked ones).
func apiKey(s string, i int) (int, string) {
	if !hasPrefixFold(s[i:], "sk-") {
		return 0, ""
	}
	j := run(s, i+3, func(b byte) bool { return isKeyChar(b) || b == '*' })
	if j-i-3 < 8 {
		return 0, ""
	}
	return j, s[i:i+3] + redacted
}

// googleKey matches Google API keys: "AIza" and 35 more characters.
func googleKey(s string, i int) (int, string) {
	if !strings.HasPrefix(s[i:], "AIza") {
		return 0, ""
	}
	j := run(s, i+4, isKeyChar)
	if j-i < 30 {
		return 0, ""
	}
	return j, redacted
}

// awsKeyID matches AWS access key ids: AKIA, ASIA and the other four-letter
// prefixes, then 16 upper-case letters and digits.
func awsKeyID(s string, i int) (int, string) {
	if len(s)-i < 20 {
		return 0, ""
	}
	switch s[i : i+4] {
	case "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "APKA", "AIPA":
	default:
		return 0, ""
	}
	j := run(s, i+4, func(b byte) bool { return 'A' <= b && b <= 'Z' || isDigit(b) })
	if j-i < 20 || j < len(s) && isAlnum(s[j]) {
		return 0, ""
	}
	return j, redacted
}

// githubToken matches ghp_/gho_/ghu_/ghs_/ghr_ tokens and github_pat_ ones.
func githubToken(s string, i int) (int, string) {
	rest := s[i:]
	var j int
	switch {
	case strings.HasPrefix(rest, "github_pat_"):
		j = run(s, i+len("github_pat_"), isAlnum)
		if j-i-len("github_pat_") < 20 {
			return 0, ""
		}
	case len(rest) > 4 && rest[:2] == "gh" && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_':
		j = run(s, i+4, isAlnum)
		if j-i-4 < 20 {
			return 0, ""
		}
	default:
		return 0, ""
	}
	return j, redacted
}

// slackToken matches xoxa-, xoxb-, xoxp-, xoxr-, xoxs- and xapp- tokens.
func slackToken(s string, i int) (int, string) {
	rest := s[i:]
	ok := len(rest) > 5 && (rest[:3] == "xox" && strings.IndexByte("abeprs", rest[3]) >= 0 && rest[4] == '-' ||
		rest[:5] == "xapp-")
	if !ok {
		return 0, ""
	}
	j := run(s, i+5, isKeyChar)
	if j-i-5 < 10 {
		return 0, ""
	}
	return j, redacted
}

// stripeKey matches Stripe secret and restricted keys (sk_/rk_, live and
// test); sk_ is reached through apiKey's letter.
func stripeKey(s string, i int) (int, string) {
	rest := s[i:]
	var n int
	for _, p := range []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"} {
		if hasPrefixFold(rest, p) {
			n = len(p)
			break
		}
	}
	if n == 0 {
		return 0, ""
	}
	j := run(s, i+n, isAlnum)
	if j-i-n < 10 {
		return 0, ""
	}
	return j, redacted
}

// jwt matches a JSON web token: three base64url parts, the first two "eyJ…".
func jwt(s string, i int) (int, string) {
	if !strings.HasPrefix(s[i:], "eyJ") {
		return 0, ""
	}
	b64 := func(b byte) bool { return isAlnum(b) || b == '-' }
	j := run(s, i, b64)
	if j-i < 10 || j >= len(s) || s[j] != '.' || !strings.HasPrefix(s[j+1:], "eyJ") {
		return 0, ""
	}
	k := run(s, j+1, b64)
	if k-j < 10 || k >= len(s) || s[k] != '.' {
		return 0, ""
	}
	l := run(s, k+1, b64)
	if l-k < 8 {
		return 0, ""
	}
	return l, redacted
}

// urlPassword matches the password of "scheme://user:password@host" (i at
// the ':' of "://") and returns its span.
func urlPassword(s string, i int) (int, int) {
	if !strings.HasPrefix(s[i:], "://") || i == 0 || !isLetter(s[i-1]) {
		return 0, 0
	}
	u := i + 3
	k := u
	for k < len(s) && k-u < 512 && strings.IndexByte("/ \t\r\n@?#\"'<>`", s[k]) < 0 {
		k++
	}
	if k >= len(s) || s[k] != '@' {
		return 0, 0
	}
	c := strings.IndexByte(s[u:k], ':')
	if c < 0 || u+c+1 == k {
		return 0, 0
	}
	return u + c + 1, k
}

// pemBlock matches "-----BEGIN … PRIVATE KEY-----" and replaces its body
// (to "-----END …-----", or to the end of s when the block is not closed
// yet, so that a key streamed line by line is never shown). The header
// stays, so a text that grows only ever grows its sanitised form.
func pemBlock(s string, i int) (start, end int, with string) {
	const begin = "-----BEGIN "
	if !strings.HasPrefix(s[i:], begin) {
		return 0, 0, ""
	}
	h := strings.Index(s[i+len(begin):], "-----")
	if h < 0 || h > 64 {
		return 0, 0, ""
	}
	label := s[i+len(begin) : i+len(begin)+h]
	if !strings.HasSuffix(label, "PRIVATE KEY") {
		return 0, 0, ""
	}
	body := i + len(begin) + h + len("-----")
	e := strings.Index(s[body:], "-----END ")
	if e < 0 {
		if t := strings.TrimSpace(s[body:]); t == "" || t == redacted {
			return 0, 0, ""
		}
		return body, len(s), "\n" + redacted
	}
	e += body
	if strings.TrimSpace(s[body:e]) == "" || strings.TrimSpace(s[body:e]) == redacted {
		return 0, 0, ""
	}
	return body, e, "\n" + redacted + "\n"
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
			continue
		}
		quoted := j < len(s) && s[j] == '"'
		if quoted {
			j++
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j >= len(s) || (s[j] != ':' && s[j] != '=') {
			continue
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

// SanitizeEvidence returns ev with every text field sanitised, so that it
// can be stored (the executions history) and logged.
func SanitizeEvidence(ev Evidence) Evidence {
	for _, f := range []*string{&ev.RPCMessage, &ev.RPCData, &ev.ExitStatus, &ev.StderrTail, &ev.Err, &ev.OutputText} {
		*f = Sanitize(*f)
	}
	return ev
}
