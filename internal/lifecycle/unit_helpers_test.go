package lifecycle

import acp "github.com/coder/acp-go-sdk"

func update(user bool, id *string, text string) acp.SessionUpdate {
	if user {
		return acp.SessionUpdate{UserMessageChunk: &acp.SessionUpdateUserMessageChunk{Content: acp.TextBlock(text), MessageId: id}}
	}
	return acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: acp.TextBlock(text), MessageId: id}}
}
