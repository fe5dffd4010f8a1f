package acpagents

// A fake OpenAI API: the Responses API (POST …/responses, SSE) for Codex,
// and Chat Completions (POST …/chat/completions, SSE) for the
// OpenAI-compatible agents, opencode and Qwen Code. An agent turn is a
// request with tools that is not a known side request; side requests
// (session titles, Qwen's next-prompt suggestion and memory extraction) are
// always answered. The error bodies are the ones the real API sends.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sideMarkers recognise side requests that carry tools too (Qwen Code's
// next-prompt suggestion and memory extraction) by their last user message.
var sideMarkers = []string{"[SUGGESTION MODE", "Managed memory has TWO directories"}

type openaiFake struct {
	*recorder
	seq atomic.Int64 // sequence_number of Responses events
}

func newOpenAIFake(t *testing.T, prompts, replies []string, script map[int][]failure) *recorder {
	f := &openaiFake{recorder: newRecorder(t, prompts, replies, script)}
	f.serve(http.HandlerFunc(f.handle))
	return f.recorder
}

// openaiRequest is the part of a chat completions or responses body the fake reads.
type openaiRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"input"`
	Tools []json.RawMessage `json:"tools"`
}

func (f *openaiFake) handle(w http.ResponseWriter, req *http.Request) {
	body := readBody(req)
	rec := request{At: time.Now(), Method: req.Method, Path: req.URL.Path, Body: body, Prompt: -1, Outcome: "ok", Status: http.StatusOK}
	defer func() { f.log(rec) }()
	api := ""
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/responses"):
		api = "responses"
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/chat/completions"):
		api = "chat"
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/models"):
		var models []any
		for _, id := range []string{"gpt-5.4", "fake-model"} {
			models = append(models, map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "fake"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": models}, nil)
		return
	default:
		rec.Status = http.StatusNotFound
		writeJSON(w, rec.Status, openaiError("fake-openai: no route "+req.Method+" "+req.URL.Path, "invalid_request_error", "not_found"), nil)
		return
	}
	var o openaiRequest
	_ = json.Unmarshal([]byte(body), &o)
	model := o.Model
	if model == "" {
		model = "gpt-fake"
	}
	for _, m := range o.Messages {
		f.addMessage(&rec, m.Role, contentText(m.Content))
	}
	for _, it := range o.Input {
		if it.Type == "" || it.Type == "message" {
			f.addMessage(&rec, it.Role, contentText(it.Content))
		}
	}
	rec.Prompt = f.latestPrompt(rec.Users)
	rec.Turn = len(o.Tools) > 0 && !isSide(rec.Users)
	fail := failure("")
	if rec.Turn {
		fail = f.next(rec.Prompt)
	}
	text := "Fake title"
	if rec.Turn {
		text = f.reply(rec.Prompt)
	}
	if fail != "" {
		rec.Outcome = string(fail)
	}
	switch fail {
	case "":
		if api == "responses" {
			f.responsesOK(w, model, text, o.Stream)
		} else {
			chatOK(w, model, text, o.Stream)
		}
	case serverError:
		rec.Status = http.StatusInternalServerError
		writeJSON(w, rec.Status, openaiError("The server had an error while processing your request. Sorry about that!", "server_error", nil), nil)
	case overloaded:
		rec.Status = http.StatusServiceUnavailable
		writeJSON(w, rec.Status, openaiError("The server is overloaded or not ready yet.", "server_error", nil), nil)
	case rateLimited:
		rec.Status = http.StatusTooManyRequests
		writeJSON(w, rec.Status, openaiError(rateMessage(model), "tokens", "rate_limit_exceeded"), nil)
	case streamError:
		msg := "An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists. Please include the request ID req_fake_1 in your message."
		s := startSSE(w)
		if api == "responses" {
			f.responsesHead(s, model)
			f.event(s, "response.failed", map[string]any{"response": responseObj(model, "failed", map[string]any{
				"error": map[string]any{"code": "server_error", "message": msg},
			})})
			return
		}
		s.raw(chatChunk(model, map[string]any{"role": "assistant", "content": ""}, nil))
		s.data("", map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": "server_error"}}, false)
	case dropped:
		s := startSSE(w)
		if api == "responses" {
			f.responsesHead(s, model)
			f.event(s, "response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
				"id": "msg_fake", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
			f.event(s, "response.output_text.delta", map[string]any{"item_id": "msg_fake", "output_index": 0, "content_index": 0, "delta": partialMarker + " "})
		} else {
			s.raw(chatChunk(model, map[string]any{"role": "assistant", "content": partialMarker + " "}, nil))
		}
		s.cut() // the deferred log records it as the stream unwinds
	}
}

func (f *openaiFake) addMessage(rec *request, role, text string) {
	switch role {
	case "user":
		rec.Users = append(rec.Users, text)
	case "assistant":
		rec.Assistants = append(rec.Assistants, text)
	}
}

func isSide(users []string) bool {
	if len(users) == 0 {
		return false
	}
	last := users[len(users)-1]
	for _, m := range sideMarkers {
		if strings.Contains(last, m) {
			return true
		}
	}
	return false
}

func openaiError(message, typ string, code any) map[string]any {
	return map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}}
}

func rateMessage(model string) string {
	return fmt.Sprintf("Rate limit reached for %s in organization org-fake on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in %ds. Visit https://platform.openai.com/account/rate-limits to learn more.", model, hintSeconds)
}

// ---- Responses API ----

func responseObj(model, status string, extra map[string]any) map[string]any {
	o := map[string]any{"id": "resp_fake", "object": "response", "created_at": time.Now().Unix(), "status": status, "model": model, "output": []any{}}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func (f *openaiFake) event(s *sseWriter, typ string, data map[string]any) {
	data["type"] = typ
	data["sequence_number"] = f.seq.Add(1)
	s.data(typ, data, false)
}

func (f *openaiFake) responsesHead(s *sseWriter, model string) {
	f.event(s, "response.created", map[string]any{"response": responseObj(model, "in_progress", nil)})
	f.event(s, "response.in_progress", map[string]any{"response": responseObj(model, "in_progress", nil)})
}

var responsesUsage = map[string]any{
	"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
	"output_tokens": 8, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 18,
}

func (f *openaiFake) responsesOK(w http.ResponseWriter, model, text string, stream bool) {
	item := map[string]any{"id": "msg_fake", "type": "message", "status": "completed", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	if !stream {
		writeJSON(w, http.StatusOK, responseObj(model, "completed", map[string]any{"output": []any{item}, "usage": responsesUsage}), nil)
		return
	}
	s := startSSE(w)
	f.responsesHead(s, model)
	f.event(s, "response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
		"id": "msg_fake", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}})
	f.event(s, "response.content_part.added", map[string]any{"item_id": "msg_fake", "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	a, b := halves(text)
	for _, d := range []string{a, b} {
		f.event(s, "response.output_text.delta", map[string]any{"item_id": "msg_fake", "output_index": 0, "content_index": 0, "delta": d})
	}
	f.event(s, "response.output_text.done", map[string]any{"item_id": "msg_fake", "output_index": 0, "content_index": 0, "text": text})
	f.event(s, "response.content_part.done", map[string]any{"item_id": "msg_fake", "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
	f.event(s, "response.output_item.done", map[string]any{"output_index": 0, "item": item})
	f.event(s, "response.completed", map[string]any{"response": responseObj(model, "completed", map[string]any{"usage": responsesUsage})})
}

// ---- Chat Completions ----

func chatChunk(model string, delta map[string]any, finish any) string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	return "data: " + string(b) + "\n\n"
}

func chatOK(w http.ResponseWriter, model, text string, stream bool) {
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 8, "total_tokens": 18}
	if !stream {
		writeJSON(w, http.StatusOK, map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
			"usage":   usage}, nil)
		return
	}
	s := startSSE(w)
	a, b := halves(text)
	s.raw(chatChunk(model, map[string]any{"role": "assistant", "content": a}, nil))
	s.raw(chatChunk(model, map[string]any{"content": b}, nil))
	s.raw(chatChunk(model, map[string]any{}, "stop"))
	s.data("", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model, "choices": []any{}, "usage": usage}, false)
	s.raw("data: [DONE]\n\n")
}
