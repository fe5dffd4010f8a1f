package routingerr

import "strings"

// statusMarkers introduce an HTTP status in error text. A bare number is
// never a status: "duration_ms":15290 or "402913 tokens" must not read as
// 529 or 402, so a status is exactly three digits right after one of these.
var statusMarkers = []string{
	"api error: ", "api error (", "http/1.1 ", "http/1.0 ", "http/2 ", "http/2.0 ",
	"unexpected status ", `"code":`, `"api_error_status":`,
	// The same JSON pasted through an editor or forum that turned its
	// quotes typographic: {“error”:{“code”:“404”,…}} (see curlyQuoteAt).
	"“code”:",
	"request rejected (", "status code of ",
	// A status field in any notation (see markerStatusAt, which skips the
	// separator): "status: 429", "status=429", `"status": 429`,
	// "Status(429)", "(HTTP Status: 429)", "status code: 429", "status_code=429",
	// `"status_code":429`, "statusCode=429" (logfmt), "StatusCode: 429"
	// (aws-sdk-go-v2's "https response error StatusCode: 429"), "Error
	// code: 429" and "Error code:429" (the Python SDKs), "error code 524"
	// (Cloudflare's pages), ": HTTP 429", "error=http 401", "(HTTP 429)".
	// After a word, a blank alone is no separator ("returns status 500
	// when…" is prose) except in blankSeparated.
	"status", "status code", "status_code", "statuscode", "error code", ": http", "=http", "(http",
	// Python's urllib ("HTTP Error 503: Service Unavailable"), "[HTTP 503]",
	// "(status 503)", "HTTP code 503".
	"http error ", "[http", "(status", "http code",
	// A wrapper's report of what came back: "Provider x returned 400:
	// Provider returned 400: 400 | Upstream: {…}" (claude-code-hub),
	// "upstream returned 503", "responded with 529". Prose says the same
	// ("the handler returned 503 when …"), so here the status must end the
	// clause (see statusEndsClause).
	"returned ", "returned status ", "returned http ", "responded with ",
	// okhttp's Response{…, code=429, …}. Python reprs ({'code': 429}) are
	// `"code":`'s: keywords and text read a single quote as a double one.
	"code=",
	// Python: httpx's raise_for_status ("Client error '429 Too Many
	// Requests' for url …"), requests' HTTPError ("HTTPError: 429 Client
	// Error: …"), aiohttp's "ClientResponseError: 429, message=…",
	// google-genai's "ClientError: 429 RESOURCE_EXHAUSTED. {…}".
	"error '", "httperror: ", "clientresponseerror: ", "clienterror: ", "servererror: ",
	// GitHub Copilot's CAPI client error ("Execution failed: CAPIError: 400
	// Tool name is required for Gemini requests (Request ID: …)"): the
	// status, then the upstream's message.
	"capierror: ",
	// google-api-core's exceptions print "<code> <message>" after their
	// class ("google.api_core.exceptions.PermissionDenied: 403 Your API key
	// was reported as leaked…"; exceptions.py GoogleAPICallError.__str__).
	// Only the 403 is read here: its message may say nothing else, while
	// the other classes' messages carry their own words.
	"permissiondenied: ",
	// .NET's EnsureSuccessStatusCode ("Response status code does not
	// indicate success: 429 (Too Many Requests)."), got's "Response code
	// 429 (Too Many Requests)", reqwest's "HTTP status client error (429
	// Too Many Requests) for url (…)".
	"indicate success: ", "response code ", "client error (", "server error (",
	// A wrapper's summary of its retries, whose final error opens with its
	// status: the Vercel AI SDK's RetryError ("Failed after 3 attempts. Last
	// error: 401 Unauthorized", "… with non-retryable error: '401 …'"),
	// go-retryablehttp's "POST <url> giving up after 5 attempt(s): …",
	// "… failed after 3 retries: 503 …".
	"last error: ", "non-retryable error: ", "attempts: ", "attempt(s): ", "retries: ",
	// GitHub Copilot Chat's failure reasons: "Reason: Server error: 503",
	// "Reason: Request Failed: 408 {…}".
	"server error: ", "request failed: ",
	// The Stainless SDKs' debug log (anthropic-sdk-typescript and openai-node,
	// client.ts: "[log_…] post <url> failed with status 429 in 179ms -
	// error; no more retries left"), as Claude Code prints it with
	// ANTHROPIC_LOG=debug.
	"failed with status ",
	// Zed's providers wrap a failed request as "Failed to connect to
	// <Provider> API: <status> <body>" with the http crate's StatusCode
	// Display ("401 Unauthorized", "500 Internal Server Error"):
	// crates/ollama/src/ollama.rs ("Failed to connect to Ollama API: {}
	// {}", "Failed to connect to API: {} {}"), crates/lmstudio, the
	// Copilot Chat and OpenRouter clients. "API: 500 requests a day" is
	// prose, so here the status must be followed by its reason phrase
	// (see reasonMarkers).
	"api: ",
	// openai-go's apierror.Error (internal/apierror/apierror.go; other
	// generated Go SDKs share the template): Error() is fmt.Sprintf("%s %q:
	// %d %s %s", method, URL, status, http.StatusText(status), raw body), which
	// Go agents print as it is: crush's `POST "https://…/chat/completions":
	// 400 Bad Request {…}`. The quoted URL ends in `": `; a JSON field does
	// too, so here also the status must be followed by its reason phrase.
	`": `,
	// The same SDKs' older core.ts debug line for the final error, printed
	// with DEBUG=true as console.log(`Anthropic:DEBUG:${action}`, …):
	// debug(`response (error; ${retryMessage})`, response.status, url, …)
	// where retryMessage is "(error; not retryable)" or "(error; no more
	// retries left)" — the SDK has stopped, the status decides.
	"; not retryable)) ", "; no more retries left)) ",
	// gptstudio (R, MichelNivard/gptstudio R/openai_api_calls.R and its
	// other services' send_abort_message): cli_abort("OpenAI API request
	// failed. Error {status} - {description}") with httr2's
	// resp_status_desc, printed "✖ OpenAI API request failed. Error 429 -
	// Too Many Requests". "… request failed. Error 2 of 3 …" is prose, so
	// here the status must be followed by " - " and its reason phrase (see
	// dashReasonMarkers).
	"request failed. error ",
	// Gemini CLI's Chinese UI (locales/zh/errors.json api.prefix and
	// prefixWithStatus): "[API 错误: {{message}}]", "[API 错误: {{message}}
	// (状态: {{status}})]".
	"api 错误: ", "(状态: ",
	// GitHub Copilot's completions fetcher for a status it has no branch
	// for (microsoft/vscode-copilot-chat
	// src/extension/completions-core/vscode-node/lib/src/openai/fetch.ts at
	// 0afc7acf, LiveOpenAIFetcher.handleError: logger.error(…, 'Unhandled
	// status from server:', response.status, text) and the reason
	// `unhandled status from server: ${status} ${text}`). Its language
	// server's log, as copilot.vim and the JetBrains plugin show it, joins
	// the logger's arguments with commas ("Unhandled status from
	// server:,466,…", github/copilot.vim autoload/copilot/agent.vim), so the
	// comma is the separator there.
	"status from server:", "status from server:,",
	// A status in square brackets: @google/generative-ai's fetch error
	// ("Error fetching from <url>: [503 Service Unavailable] The model is
	// overloaded.", "[503 ] …" when the status text is empty), and
	// wrappers' "<Provider> Error [503]: <body>", a log's "[ERROR] [503]:
	// {…}" (9router). See bracketStatusOK.
	"] [", "error [", ": [",
}

// clauseMarkers are the markers after which a status must end its clause.
var clauseMarkers = map[string]bool{"returned ": true, "returned status ": true, "returned http ": true, "responded with ": true}

// reasonMarkers are the markers after which a status must be followed by
// its reason phrase ("401 Unauthorized").
var reasonMarkers = map[string]bool{"api: ": true, `": `: true}

// dashReasonMarkers are the markers after which a status must be followed
// by " - " and its reason phrase ("429 - Too Many Requests").
var dashReasonMarkers = map[string]bool{"request failed. error ": true}

// dashReasonFollows: the status at s[i:i+3] (after blanks) is followed by
// " - " and a capital letter.
func dashReasonFollows(s string, i int) bool {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	j := i + 3
	return j+3 < len(s) && s[j:j+3] == " - " && 'A' <= s[j+3] && s[j+3] <= 'Z'
}

// reasonFollows: the status at s[i:i+3] (after blanks) is followed by a
// blank and a capital letter, or by the http crate's placeholder for a
// status it has no reason for ("529 <unknown status code>", StatusCode's
// Display in hyperium/http src/status.rs).
func reasonFollows(s string, i int) bool {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	j := i + 3
	if j+1 >= len(s) || s[j] != ' ' {
		return false
	}
	return 'A' <= s[j+1] && s[j+1] <= 'Z' || strings.HasPrefix(s[j+1:], "<unknown status code>")
}

// statusEndsClause: the status at s[i:i+3] (after blanks) is followed by
// the end of the text or line, ':', ',', ';', '.', ' |', ' (', ' {', ' [',
// ' -', ' –' or ' —': it is what came back, not the subject of a sentence.
// The en and em dash are how messages set the status off from the
// explanation after it (anton's "Server returned 401 — the LLM endpoint
// may be temporarily unavailable. Try again in a moment.").
func statusEndsClause(s string, i int) bool {
	for i < len(s) && (s[i] == ' ' || s[i] == '"') {
		i++
	}
	j := i + 3
	if j >= len(s) {
		return true
	}
	switch s[j] {
	case '\n', '\r', ':', ',', ';', '.':
		return true
	case ' ':
		if j+1 >= len(s) {
			return true
		}
		switch s[j+1] {
		case '|', '(', '{', '-', '[':
			return true
		}
		if rest := s[j+1:]; strings.HasPrefix(rest, "–") || strings.HasPrefix(rest, "—") {
			return true
		}
	}
	return false
}

// markerStatusAt parses the status after marker m, which ends at s[i]:
// after the separator notations put between a field and its value (blanks,
// quotes, '=', ':', '(', '#'), at most eight bytes of them, so "status:
// 429" and "statusCode=429" read alike and "status of 429" or
// "http://h:443" do not. After a marker that ends in a letter a blank alone
// is no separator, unless blankSeparated says the words are a field name.
func markerStatusAt(m, s string, i int) (int, bool) {
	if m == "api error (" {
		// Claude Code's debug log of a failed attempt, "API error (attempt
		// 1/11): 403 <message>" (withRetry, logged for every error before it
		// decides whether to retry; 2.1.229): the status follows the counter.
		if j, ok := attemptLogStatusAt(s, i); ok {
			i = j
		}
	}
	sep := false
	for j := 0; i < len(s) && j < 8; j++ {
		switch s[i] {
		case ' ', '\t':
			i++
			continue
		case '"', '\'', '\\', '=', ':', '(', '#':
			sep = true
			i++
			continue
		}
		if curlyQuoteAt(s, i) {
			sep = true
			i += 3
			continue
		}
		break
	}
	if !sep && isLetter(m[len(m)-1]) && !blankSeparated[m] {
		return 0, false
	}
	if clauseMarkers[m] && !statusEndsClause(s, i) {
		return 0, false
	}
	if reasonMarkers[m] && !reasonFollows(s, i) {
		return 0, false
	}
	if dashReasonMarkers[m] && !dashReasonFollows(s, i) {
		return 0, false
	}
	return statusAt(s, i)
}

// curlyQuoteAt: s[i:] opens with a typographic double quote, U+201C or
// U+201D (UTF-8 E2 80 9C/9D), which pasted JSON may carry for '"'.
func curlyQuoteAt(s string, i int) bool {
	return i+2 < len(s) && s[i] == 0xe2 && s[i+1] == 0x80 && (s[i+2] == 0x9c || s[i+2] == 0x9d)
}

// blankSeparated are the markers whose words already say a status follows:
// "status code 429", "error code 524", "response code 429", "(http 429)".
var blankSeparated = map[string]bool{"status code": true, "error code": true, "(http": true, ": http": true, "=http": true,
	"[http": true, "(status": true, "http code": true}

// bracketStatusOK: a status after a bracket marker (the last two of
// statusMarkers) closes the bracket or goes on with its status text, so a
// JSON array of numbers ("codes": [429, 503]) is no status. After ": [" it
// must be followed by a blank ("[503 Service Unavailable]", "[503 ]"):
// "errors": [500] is an array.
func bracketStatusOK(marker, text string, i int) bool {
	j := i
	for j < len(text) && j < i+8 && (text[j] == ' ' || text[j] == '"' || text[j] == '\\' || text[j] == '\'') {
		j++
	}
	j += 3
	if j >= len(text) {
		return false
	}
	switch marker {
	case ": [":
		return text[j] == ' '
	case "] [":
		return text[j] == ']'
	}
	return text[j] == ']' || text[j] == ' '
}

// httpStatus returns the effective HTTP status and its offset in raw. A
// structured status (Evidence.HTTPStatus >= 400, or a JSON-RPC code in
// 400–599: Gemini CLI sends the HTTP status as the code) outranks any number
// in the text; a 2xx structured status means the error came inside a
// stream, and then the text may still name one.
func (s *scan) httpStatus() (int, int) {
	if !s.statusDone {
		s.statusDone = true
		if st := s.ev.HTTPStatus; st >= 400 && st <= 599 {
			s.status, s.statusPos = st, 0
		} else {
			s.status, s.statusPos = textStatus(s)
		}
	}
	return s.status, s.statusPos
}

// structuredStatus is the HTTP status the evidence carries outside the text:
// Evidence.HTTPStatus, else a JSON-RPC error code in 100–599.
func structuredStatus(ev *Evidence) int {
	if ev.HTTPStatus != 0 {
		return ev.HTTPStatus
	}
	if ev.HasRPCError && ev.RPCCode >= 100 && ev.RPCCode <= 599 {
		return ev.RPCCode
	}
	return 0
}

var kwNoBody = newKW(" status code (no body)")

// firstBracketMarker is the id of "] [", the first bracket marker.
var firstBracketMarker = len(statusMarkers) - 3

// textStatus finds the last status introduced by a marker; the last one is
// the final error of a tail that retried. The scan recorded, for each
// marker, where its last occurrence followed by a status ended.
func textStatus(s *scan) (int, int) {
	best, bestEnd := 0, -1
	for id := range statusMarkers {
		end := int(s.last[id])
		if end == 0 || end <= bestEnd {
			continue
		}
		if st, ok := markerStatusAt(statusMarkers[id], s.raw, end); ok && (id < firstBracketMarker || bracketStatusOK(statusMarkers[id], s.raw, end)) {
			best, bestEnd = st, end
		}
	}
	if bestEnd < 0 {
		// openai-node's "400 status code (no body)": the status comes first.
		if i := s.indexKW(kwNoBody); i >= 4 && isBlank(s.low[i-4]) || i == 3 {
			if st, ok := statusAt(s.raw, i-3); ok {
				return st, i - 3
			}
		}
		if st, pos := leadingStatus(s.raw); st != 0 {
			return st, pos
		}
		return sdkClassStatus(s)
	}
	return best, max(0, bestEnd-1)
}

// sdkStatusClasses are the SDK exception classes that stand for one HTTP
// status, by module ("litellm.ServiceUnavailableError: …", "openai.
// PermissionDeniedError: …"), read when the text names no status: LiteLLM
// (litellm/exceptions.py, each class's status_code) prints its class and the
// provider's message without the number; the OpenAI and Anthropic SDKs
// (_exceptions.py) map the same names to the same statuses. The leading dot
// keeps "ModuleNotFoundError" out.
var sdkStatusClasses = []struct {
	k  *kw
	st int
}{
	{newKW(".authenticationerror"), 401}, {newKW(".permissiondeniederror"), 403}, {newKW(".notfounderror"), 404},
	{newKW(".conflicterror"), 409}, {newKW(".unprocessableentityerror"), 422}, {newKW(".ratelimiterror"), 429},
	{newKW(".badgatewayerror"), 502}, {newKW(".serviceunavailableerror"), 503},
	// InternalServerError is left out: it stands for any status from 500
	// up, and its message's words ("AnthropicException - Overloaded") say
	// more than a 500 would.
}

// sdkClassStatus is the status of the first SDK class in s, 0 when none.
func sdkClassStatus(s *scan) (int, int) {
	for _, c := range sdkStatusClasses {
		if i := s.indexKW(c.k); i >= 0 {
			return c.st, i
		}
	}
	return 0, 0
}

// leadingStatus finds the last line that opens with a status: the SDKs'
// APIError message is `${status} ${message}` (openai-node and
// anthropic-sdk-typescript, core/error.ts makeMessage: "429 Free allocated
// quota exceeded.", "401 Your authentication token has been invalidated…",
// "404 NOT_FOUND. {…}", "400 {"type":"error",…}"), which agents pass on
// bare, after "Error: ", in a box ("⎿ ", "✕ [") or in parentheses. The
// status must be followed by a capital, a JSON value or the end of its
// line ("400\n400 {…}"), so "404 lines changed" or "500 files" is no
// status. 0, 0 when no line opens with one.
func leadingStatus(raw string) (int, int) {
	best, bestPos := 0, 0
	for ls := 0; ls < len(raw); {
		le := strings.IndexByte(raw[ls:], '\n')
		if le < 0 {
			le = len(raw)
		} else {
			le += ls
		}
		if i, named := statusLead(raw, ls, le); i >= 0 {
			if st, ok := statusAt(raw, i); ok && i+3 <= le {
				if j := i + 3; j == le || raw[j] == '\r' || raw[j] == ' ' && j+1 < le && (statusFollow(raw[j+1]) || jsonStringFollows(raw[j+1:le])) || strings.TrimRight(raw[j:le], " \t\r") == "" ||
					named && raw[j] == ':' && (j+1 == le || raw[j+1] == ' ') {
					best, bestPos = st, i
				}
			}
		}
		ls = le + 1
	}
	return best, bestPos
}

// statusLead is where a status may start on the line raw[ls:le]: after
// blanks, then one of the glyphs and prefixes agents put before an error (a
// second after "⎿"), then blanks; -1 when the line is too short to hold one. named
// reports a lead that names the number a status ("HTTP 503: …"), after
// which a colon may follow it too.
func statusLead(raw string, ls, le int) (int, bool) {
	i := ls
	// A Markdown quote's "> " (a paste quoted in a reply) opens no words,
	// as quoteAt reads it.
	for i < le && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '>' && (i+1 == le || raw[i+1] == ' ' || raw[i+1] == '>')) {
		i++
	}
	// The TUI's "⎿" may stand before another lead: "⎿  Error: 400 …",
	// "⎿  API Error 429".
	named := false
	for pass := 0; pass < 2; pass++ {
		p := leadAt(raw[i:le])
		if p == "" {
			break
		}
		i += len(p)
		named = p == "http " || p == "api error "
		if p != "⎿" {
			break
		}
		for i < le && raw[i] == ' ' {
			i++
		}
	}
	for i < le && raw[i] == ' ' {
		i++
	}
	if le-i < 3 || raw[i] < '4' || raw[i] > '5' {
		return -1, false
	}
	return i, named
}

// leadAt is the lead of statusLeads that line opens with, or "".
func leadAt(line string) string {
	for _, p := range statusLeads {
		if strings.HasPrefix(line, p) || len(p) > 1 && len(line) >= len(p) && strings.EqualFold(line[:len(p)], p) {
			return p
		}
	}
	return ""
}

// statusLeads: the glyphs and prefixes before a leading status. "HTTP " is
// Continue's own (core/llm/index.ts: a non-ok response throws `HTTP
// ${status} ${statusText} from ${url}` and the body) and opencode Go's
// "HTTP 503: …"; "API Error " is the same status line without its colon.
var statusLeads = []string{"⎿", "✕ [", "✖ ", "✕ ", "(", "[", "error: ", "error ", "http ", "api error "}

// jsonStringFollows: s opens with a JSON string whose text starts with a
// letter, as openai-node's makeMessage writes a body whose error is a bare
// string (src/core/error.ts at 103a644d: error?.message ? … : error ?
// JSON.stringify(error) : message, then `${status} ${msg}`), so {"error":
// "Usage limit exceeded"} becomes `402 "Usage limit exceeded"`.
func jsonStringFollows(s string) bool {
	return len(s) > 1 && s[0] == '"' && ('A' <= s[1] && s[1] <= 'Z' || 'a' <= s[1] && s[1] <= 'z')
}

// statusFollow: what may follow "NNN " when the number is a status.
func statusFollow(b byte) bool {
	return 'A' <= b && b <= 'Z' || b == '{' || b == '['
}

// statusAt parses an error status (400-599) of exactly three digits at
// s[i:], after blanks, quotes and backslashes; a following digit or '.'
// disqualifies it.
func statusAt(s string, i int) (int, bool) {
	for j := 0; i < len(s) && j < 8 && (s[i] == ' ' || s[i] == '"' || s[i] == '\\' || s[i] == '\''); j++ {
		i++
	}
	if i+3 > len(s) {
		return 0, false
	}
	n := 0
	for j := i; j < i+3; j++ {
		c := s[j]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if i+3 < len(s) {
		// "HTTP 429. Rate limited." ends a sentence; "402.5" is no status.
		if c := s[i+3]; c >= '0' && c <= '9' || c == '.' && i+4 < len(s) && s[i+4] != ' ' && s[i+4] != '\n' && s[i+4] != '\r' {
			return 0, false
		}
	}
	if n < 400 || n > 599 {
		return 0, false
	}
	return n, true
}

// attemptLogStatusAt: s[i:] opens with the counter of Claude Code's attempt
// log, "attempt <n>/<m>): " (after "API error ("); it returns where the
// status after it starts.
func attemptLogStatusAt(s string, i int) (int, bool) {
	const w = "attempt "
	if len(s)-i < len(w) || !strings.EqualFold(s[i:i+len(w)], w) {
		return 0, false
	}
	j := i + len(w)
	_, n := leadingInt(s[j:])
	if n == 0 || j+n >= len(s) || s[j+n] != '/' {
		return 0, false
	}
	j += n + 1
	_, n = leadingInt(s[j:])
	if n == 0 || !strings.HasPrefix(s[j+n:], "): ") {
		return 0, false
	}
	return j + n + len("): "), true
}
