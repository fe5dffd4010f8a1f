package routingerr

// Fixtures for rules_resume.go (catalogue claude-code.jsonl claude-code-
// compact-*, -resume-*, -session-flag-*; codex.jsonl codex-rollout-*): the
// near misses each rule must leave alone.
func init() {
	for id, f := range map[string]struct{ pos, neg []Evidence }{
		"claude_code.compaction_too_long.v1": {
			pos: []Evidence{txt("  ⎿ Error: Error during compaction: Error: Conversation too long. Press esc twice to go up a few messages and try \n    again."),
				txt("> /compact\n⎿ Error during compaction: Error: Conversation too long. Press esc to go up a few messages and try again.")},
			neg: []Evidence{txt("Error during compaction: Error: API Error: 529 Overloaded"), txt("the conversation was too long to read"),
				txt("the context could not be reduced"), txt("Conversation too long to display. Press enter to continue.")},
		},
		"claude_code.compaction_media.v1": {
			pos: []Evidence{txt("Error: Compaction failed · attached media exceeds size limits")},
			neg: []Evidence{txt("attached media"), txt("media size limits apply")},
		},
		"session.resume_missing.v1": {
			pos: []Evidence{txt(`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["No conversation found with session ID: 1a2b"]}`),
				txt("Error creating task\nno rollout found for thread id 019e"),
				txt("ERROR: No saved session found with ID 0199a7b2. Run `codex fork` without an ID to choose from existing sessions.")},
			neg: []Evidence{txt("No conversation history yet"), txt("rollout found for thread id 019e"), txt("thread history loaded")},
		},
		"claude_code.session_flags.v1": {
			pos: []Evidence{txt("Error: Invalid session ID. Must be a valid UUID.")},
			neg: []Evidence{txt("--session-id 550e8400-e29b-41d4-a716-446655440000"), txt("use --continue or --resume to pick up a session"),
				txt("Invalid API key · Please run /login")},
		},
		"claude_code.session_in_use.v1": {
			pos: []Evidence{txt("Error: Session ID 550e8400-e29b-41d4-a716-446655440000 is already in use.")},
			neg: []Evidence{txt("OAuth callback port 54545 is already in use — another process may be holding it."),
				txt("session id 550e8400 resumed")},
		},
	} {
		ruleFixtures[id] = f
	}
}
