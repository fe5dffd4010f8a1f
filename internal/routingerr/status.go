package routingerr

import "strings"

// statusMarkers introduce an HTTP status in error text. A bare number is
// never a status: "duration_ms":15290 or "402913 tokens" must not read as
// 529 or 402, so a status is exactly three digits right after one of these.
var statusMarkers = []string{
	"api error: ", "api error (", "http/1.1 ", "http/1.0 ", "http/2 ", "http/2.0 ",
	"status: ", "status code: ", "status code ", "unexpected status ", "status=",
	`"code":`, `"status":`, `"status_code":`, `"statuscode":`, `"api_error_status":`,
	"request rejected (", "error code: ", "error: http ",
}

// httpStatus returns the effective HTTP status and its offset in raw. A
// structured status (Evidence.HTTPStatus >= 400) outranks any number in the
// text; a 2xx structured status means the error came inside a stream, and
// then the text may still name one.
func (s *scan) httpStatus() (int, int) {
	if !s.statusDone {
		s.statusDone = true
		if s.ev.HTTPStatus >= 400 && s.ev.HTTPStatus <= 599 {
			s.status, s.statusPos = s.ev.HTTPStatus, 0
		} else {
			s.status, s.statusPos = textStatus(s)
		}
	}
	return s.status, s.statusPos
}

// textStatus finds the last status introduced by a marker; the last one is
// the final error of a tail that retried.
func textStatus(s *scan) (int, int) {
	low := s.low
	best, bestPos := 0, -1
	for id, m := range statusMarkers {
		if s.last[id] == 0 {
			continue
		}
		// The scan recorded the last occurrence; earlier ones are only
		// needed when it is not followed by a status.
		end := int(s.last[id])
		for end > 0 {
			i := strings.LastIndex(low[:end], m)
			if i < 0 || i <= bestPos {
				break
			}
			if st, ok := threeDigits(low, i+len(m)); ok {
				best, bestPos = st, i
				break
			}
			end = i
		}
	}
	if bestPos < 0 {
		return 0, 0
	}
	return best, bestPos
}

// threeDigits parses an error status (400-599) of exactly three digits at
// s[i:], after optional spaces; a following digit or '.' disqualifies it.
func threeDigits(s string, i int) (int, bool) {
	for i < len(s) && s[i] == ' ' {
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
		if c := s[i+3]; c >= '0' && c <= '9' || c == '.' {
			return 0, false
		}
	}
	if n < 400 || n > 599 {
		return 0, false
	}
	return n, true
}
