package routingerr

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Localised wordings of the agents' own retry and rate-limit lines. Qwen Code
// translates its retry countdown and the reason above it
// (packages/cli/src/i18n/locales/*.js, "Retry / Rate Limit": "Retrying in
// {{seconds}} seconds… (attempt {{attempt}}/{{maxRetries}})" and "Rate limit
// error: {{reason}}"); a user whose UI is in Chinese, Japanese, Korean or
// French pastes those words. A countdown is the agent still retrying, as its
// English line is.

//
// opencode (and Kilo Code, which shares its session UI) translates its retry
// status the same way: packages/ui/src/i18n/<lang>.ts joins
// "ui.sessionTurn.retry.retrying" and "ui.sessionTurn.retry.inSeconds"
// with a blank and puts "ui.sessionTurn.retry.attemptLine" ("{{line}} -
// attempt #{{attempt}}") around them, so a Russian UI shows "повтор через
// 3с - попытка №2" and an Arabic one "إعادة المحاولة خلال 62056 ثواني -
// المحاولة رقم 1" where the English one shows "retrying in 3s - attempt #2"
// (read by claude_code.retrying.v1).

// i18nRetry is one translation of the countdown: the words that follow the
// number of seconds (the CJK wordings) or precede it (French, opencode's
// lines), and for the latter the unit right after the number (one blank
// before it is allowed: a paste of "3с" reads "3 с").
type i18nRetry struct {
	w      string
	before bool   // the number comes before w
	unit   string // after the number, when it follows w
}

var i18nRetries = []i18nRetry{
	{"秒后重试", true, ""},                             // zh: 将于 {{seconds}} 秒后重试…（第 a/m 次）
	{"秒後重試", true, ""},                             // zh-TW: 將於 {{seconds}} 秒後重試…（第 a/m 次）
	{"秒後に再試行", true, ""},                           // ja: {{seconds}} 秒後に再試行します… (a/m 回目)
	{"초 후 재시도", true, ""},                          // ko: {{seconds}}초 후 재시도 중… (시도 a/m)
	{"nouvelle tentative dans ", false, "seconde"}, // fr: Nouvelle tentative dans {{seconds}} secondes… (tentative a/m)
	// opencode's "<retrying> <inSeconds>" (packages/ui/src/i18n).
	{"повтор через ", false, "с"},            // ru: повтор · через {{seconds}}с
	{"повтор спроби через ", false, "с"},     // uk (Kilo Code): повтор спроби · через {{seconds}}с
	{"إعادة المحاولة خلال ", false, "ثواني"}, // ar: إعادة المحاولة · خلال {{seconds}} ثواني
	{"erneuter versuch in ", false, "s"},     // de: erneuter Versuch · in {{seconds}}s
	{"reintentando en ", false, "s"},         // es: reintentando · en {{seconds}}s
	{"ponovni pokušaj za ", false, "s"},      // bs: ponovni pokušaj · za {{seconds}}s
	{"重试中 ", false, "秒后"},                    // zh: 重试中 · {{seconds}} 秒后
	{"再試行中 ", false, "秒後"},                   // ja: 再試行中 · {{seconds}}秒後
}

var i18nRetryWords = func() []string {
	ws := make([]string, len(i18nRetries))
	for i, r := range i18nRetries {
		ws[i] = r.w
	}
	return ws
}()

var i18nRules = []rule{
	{id: "agent.own_retry_i18n.v1", band: bandProgress, code: "in_progress", class: ClassInProgress, conf: 0.85,
		gate:  i18nRetryWords,
		check: checkRetriesOver,
		match: func(s *scan) int {
			i, _ := i18nRetryAt(s)
			return i
		},
		hint: func(s *scan, c Classification) Classification {
			if _, d := i18nRetryAt(s); d > 0 && d <= maxHint {
				c.RetryAfter = new(d)
			}
			return c
		}},
	// Gemini CLI's own errors in its Chinese UI (packages/cli/src/i18n/
	// locales/zh/errors.json, the translation of en/errors.json): "您已达到每日
	// 配额限制。" and "您已达到每日 {{currentModel}} 配额限制。" (quota.
	// dailyQuotaReached, modelQuotaReached: "You have reached your daily …
	// quota limit") are the day's quota; "请求已取消。" (api.requestCancelled)
	// is the turn cancelled.
	{id: "gemini.daily_quota_i18n.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.9,
		any: []string{"您已达到每日"}},
	{id: "gemini.request_cancelled_i18n.v1", band: bandCancel, code: "cancelled", class: ClassTerminal, conf: 0.9,
		any: []string{"请求已取消"}},
	// Codex's usage-limit notice in the app's other languages: Japanese
	// "利用制限に達しました。続行するにはプランをアップグレードするか、クレジットを追加
	// してください。" and Portuguese "Você atingiu o limite de mensagens do
	// Codex … Seu limite de uso será redefinido em 10 de jul. de 2026, 11:52."
	// (the translations of "You've hit your usage limit … try again at …";
	// catalogue codex-usage-limit-ja, codex-usage-limit-pt): a plan window,
	// not a blip.
	{id: "codex.usage_limit_i18n.v1", band: bandReset, code: "quota", class: ClassWaitForReset, conf: 0.85,
		any: []string{"利用制限に達しました", "atingiu o limite de mensagens", "limite de uso será redefinido"}},
	// Qwen Code's "Rate limit error: {{reason}}" translated: the reason is a
	// rate limit; what it says (a quota, a plan) is read by the rules before.
	{id: "qwen.rate_limit_error_i18n.v1", band: bandTransient, code: "rate_limited", class: ClassTransient, conf: 0.8,
		any: []string{"触发限流：", "觸發速率限制：", "속도 제한 오류:"}},
}

// i18nRetryAt is the last translated countdown with its seconds, the retry
// still under way (no later final error): its offset and delay, or -1.
func i18nRetryAt(s *scan) (int, time.Duration) {
	for _, r := range i18nRetries {
		i := s.index(r.w, true)
		if i < 0 || s.retriesOver(i) {
			continue
		}
		var n int
		var ok bool
		if r.before {
			n, ok = secondsBefore(s.low[:i])
		} else {
			n, ok = secondsAfter(s.low[i+len(r.w):], r.unit)
		}
		if !ok || (r.before && askedToRetry(s.low[:i])) {
			continue
		}
		return i, time.Duration(n) * time.Second
	}
	return -1, 0
}

// askedToRetry reports whether the number that ends s follows 请 / 請
// ("please"): "请 117 秒后重试" asks the caller to retry (a gateway's final
// error, WindsurfAPI's "所有账号均已达速率限制，请 N 秒后重试"), where Qwen
// Code's own countdown says "将于 N 秒后重试" ("will retry in").
func askedToRetry(s string) bool {
	s = strings.TrimRight(s, " 0123456789")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "约"), "在")
	s = strings.TrimRight(s, " ")
	return strings.HasSuffix(s, "请") || strings.HasSuffix(s, "請")
}

// secondsBefore reads the whole number that ends s, after at most one blank.
func secondsBefore(s string) (int, bool) {
	s = strings.TrimSuffix(s, " ")
	j := len(s)
	for j > 0 && isDigit(s[j-1]) && len(s)-j < 6 {
		j--
	}
	if j == len(s) {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s[j:]) {
		n = n*10 + int(c-'0')
	}
	return n, true
}

// secondsAfter reads "<n><unit>" at the start of s, with at most one blank
// before the unit ("30 secondes", "3с", "62056 ثواني"). A one-letter unit
// must end its word: "5 Stunden" and "3 суток" are hours and days.
func secondsAfter(s, unit string) (int, bool) {
	j, n := 0, 0
	for j < len(s) && j < 6 && isDigit(s[j]) {
		n = n*10 + int(s[j]-'0')
		j++
	}
	rest := strings.TrimPrefix(s[j:], " ")
	if j == 0 || !strings.HasPrefix(rest, unit) {
		return 0, false
	}
	if utf8.RuneCountInString(unit) == 1 {
		if r, _ := utf8.DecodeRuneInString(rest[len(unit):]); unicode.IsLetter(r) {
			return 0, false
		}
	}
	return n, true
}
