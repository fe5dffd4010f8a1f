package acpagents

// A fake Gemini API (generativelanguage v1beta) for Gemini CLI, whose
// @google/genai client is pointed here by GOOGLE_GEMINI_BASE_URL. An agent
// turn is POST /v1beta/models/<model>:streamGenerateContent?alt=sse with
// function declarations; side requests (the model router, the next-speaker
// check) are generateContent calls without tools and are always answered.
// The error bodies are the ones the real API sends.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

var geminiRoute = regexp.MustCompile(`^/[^/]+/models/([^:/]+):([A-Za-z]+)$`)

type geminiFake struct{ *recorder }

func newGeminiFake(t *testing.T, prompts, replies []string, script map[int][]failure) *recorder {
	f := geminiFake{newRecorder(t, prompts, replies, script)}
	f.serve(http.HandlerFunc(f.handle))
	return f.recorder
}

// geminiRequest is the part of a generateContent body the fake reads.
type geminiRequest struct {
	Contents []struct {
		Role  string          `json:"role"`
		Parts json.RawMessage `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

func (f geminiFake) handle(w http.ResponseWriter, req *http.Request) {
	body := readBody(req)
	rec := request{At: time.Now(), Method: req.Method, Path: req.URL.Path, Body: body, Prompt: -1, Outcome: "ok", Status: http.StatusOK}
	defer func() { f.log(rec) }()
	m := geminiRoute.FindStringSubmatch(req.URL.Path)
	switch {
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/models"):
		writeJSON(w, http.StatusOK, map[string]any{"models": []any{
			map[string]any{"name": "models/gemini-2.5-flash", "displayName": "gemini-2.5-flash",
				"supportedGenerationMethods": []string{"generateContent", "streamGenerateContent", "countTokens"}},
		}}, nil)
		return
	case m == nil || req.Method != http.MethodPost:
		rec.Status = http.StatusNotFound
		writeJSON(w, http.StatusNotFound, geminiError(404, "fake-gemini: no route "+req.URL.Path, "NOT_FOUND"), nil)
		return
	case m[2] == "countTokens":
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": 10}, nil)
		return
	case m[2] == "embedContent":
		writeJSON(w, http.StatusOK, map[string]any{"embedding": map[string]any{"values": []float64{0.1, 0.1, 0.1, 0.1}}}, nil)
		return
	}
	model, method := m[1], m[2]
	var g geminiRequest
	_ = json.Unmarshal([]byte(body), &g)
	for _, c := range g.Contents {
		text := contentText(c.Parts)
		if c.Role == "model" {
			rec.Assistants = append(rec.Assistants, text)
		} else {
			rec.Users = append(rec.Users, text)
		}
	}
	rec.Prompt = f.latestPrompt(rec.Users)
	stream := method == "streamGenerateContent"
	for _, t := range g.Tools {
		if len(t.FunctionDeclarations) > 0 && stream {
			rec.Turn = true
		}
	}
	schema := g.GenerationConfig.ResponseJSONSchema
	if len(schema) == 0 {
		schema = g.GenerationConfig.ResponseSchema
	}
	if !rec.Turn {
		text := "ok"
		if len(schema) > 0 {
			text = schemaReply(schema)
		}
		if stream {
			s := startSSE(w)
			s.data("", geminiChunk(text, model, true), true)
		} else {
			writeJSON(w, http.StatusOK, geminiChunk(text, model, true), nil)
		}
		return
	}
	fail := f.next(rec.Prompt)
	if fail != "" {
		rec.Outcome = string(fail)
	}
	switch fail {
	case "":
		a, b := halves(f.reply(rec.Prompt))
		s := startSSE(w)
		s.data("", geminiChunk(a, model, false), true)
		s.data("", geminiChunk(b, model, true), true)
	case overloaded:
		rec.Status = http.StatusServiceUnavailable
		writeJSON(w, rec.Status, geminiError(503, "The model is overloaded. Please try again later.", "UNAVAILABLE"), nil)
	case serverError:
		rec.Status = http.StatusInternalServerError
		writeJSON(w, rec.Status, geminiError(500, "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting", "INTERNAL"), nil)
	case rateLimited:
		rec.Status = http.StatusTooManyRequests
		writeJSON(w, rec.Status, geminiQuota(model), nil)
	case dropped, streamError:
		// Gemini has no error event inside a stream: both are a cut stream.
		s := startSSE(w)
		s.data("", geminiChunk(partialMarker+" ", model, false), true)
		s.cut() // the deferred log records it as the stream unwinds
	}
}

func geminiError(code int, message, status string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": message, "status": status}}
}

// geminiQuota is the per-minute free-tier 429: RESOURCE_EXHAUSTED with a
// QuotaFailure naming the per-minute quota and a RetryInfo retryDelay.
func geminiQuota(model string) map[string]any {
	metric := "generativelanguage.googleapis.com/generate_content_free_tier_requests"
	return map[string]any{"error": map[string]any{
		"code": 429,
		"message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n" +
			"* Quota exceeded for metric: " + metric + ", limit: 10\n" +
			fmt.Sprintf("Please retry in %ds.", hintSeconds),
		"status": "RESOURCE_EXHAUSTED",
		"details": []any{
			map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
				"quotaMetric": metric, "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
				"quotaDimensions": map[string]any{"location": "global", "model": model}, "quotaValue": "10",
			}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{map[string]any{
				"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
			}}},
			map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": fmt.Sprintf("%ds", hintSeconds)},
		},
	}}
}

func geminiChunk(text, model string, finish bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"parts": []any{map[string]any{"text": text}}, "role": "model"}, "index": 0}
	out := 1
	if finish {
		cand["finishReason"] = "STOP"
		out = 8
	}
	return map[string]any{
		"candidates":    []any{cand},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": out, "totalTokenCount": 10 + out},
		"modelVersion":  model,
		"responseId":    "fake-gemini-response",
	}
}

// schemaReply is a JSON text that fits a side request's response schema
// (the model router wants model_choice, the next-speaker check next_speaker).
func schemaReply(raw json.RawMessage) string {
	var schema struct {
		Properties map[string]struct {
			Type any      `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(raw, &schema)
	o := map[string]any{}
	for k, v := range schema.Properties {
		typ := strings.ToLower(fmt.Sprint(v.Type))
		switch {
		case len(v.Enum) > 0:
			o[k] = v.Enum[0]
		case strings.Contains(typ, "number"), strings.Contains(typ, "integer"):
			o[k] = 1
		case strings.Contains(typ, "boolean"):
			o[k] = false
		case strings.Contains(typ, "array"):
			o[k] = []any{}
		case strings.Contains(typ, "object"):
			o[k] = map[string]any{}
		default:
			o[k] = "fake " + k
		}
	}
	if _, ok := o["next_speaker"]; ok {
		o["next_speaker"] = "user"
	}
	if _, ok := o["model_choice"]; ok {
		o["model_choice"] = "flash"
	}
	b, _ := json.Marshal(o)
	return string(b)
}
