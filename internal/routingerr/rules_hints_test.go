package routingerr

// Near misses for the rules in rules_hints.go, kept beside them rather than
// in the shared table.
func init() {
	ruleFixtures["codex.usage_window_headers.v1"] = struct{ pos, neg []Evidence }{
		pos: []Evidence{txt("x-codex-primary-used-percent: 100\nx-codex-primary-reset-at: 1780333200")},
		neg: []Evidence{txt("x-codex-primary-used-percent: 99.5"), txt("x-codex-secondary-used-percent: 12"),
			txt("x-codex-secondary-primary-used-percent: 100")},
	}
	ruleFixtures["hint.stated_wait_short.v1"] = struct{ pos, neg []Evidence }{
		pos: []Evidence{txt("Please try again in 20s."), txt("Wait ~30s before retrying."), txt("请 12 秒后重试"), txt("Please try\n    again in 35.883s.")},
		neg: []Evidence{txt("Please try again in 2 hours."), txt("Connection lost, retrying in 5s"), txt("wait 5s"),
			txt("try again in a moment"), txt("will retry after 3s"), txt("将于 5 秒后重试…（第 1/10 次）")},
	}
	ruleFixtures["hint.stated_wait_long.v1"] = struct{ pos, neg []Evidence }{
		pos: []Evidence{txt("Come back in 3h 47m — your free usage resets automatically at midnight Pacific.")},
		neg: []Evidence{txt("Please try again in 20s."), txt("come back in order"), txt("retrying in 10 minutes (attempt 2/5)")},
	}
	f := ruleFixtures["agent.own_retry_i18n.v1"]
	f.neg = append(f.neg, txt("gpt-5.1 所有账号均已达速率限制，请 117 秒后重试"), txt("登录接口仍在冷却，请约 30 秒后重试"))
	ruleFixtures["agent.own_retry_i18n.v1"] = f
}
