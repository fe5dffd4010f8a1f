package routingerr

import (
	"strings"
	"testing"
)

func TestModelNamedByTheError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ev   Evidence
		want string
	}{
		// OpenAI
		{"openai backticked", status(503, "The model `gpt-4o` is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists."), "gpt-4o"},
		{"openai without a name", status(503, "That model is currently overloaded with other requests. You can retry your request."), ""},
		{"openai json body", txt(`{"error":{"message":"The model ` + "`o3-mini`" + ` is currently overloaded with other requests.","type":"server_error","param":null,"code":null}}`), "o3-mini"},
		// JSON bodies
		{"json model field", txt(`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"model":"claude-sonnet-4-5"}`), "claude-sonnet-4-5"},
		{"json model field with spaces", txt(`{"error": {"code": 503, "message": "overloaded"}, "model": "claude-sonnet-4-5-20250929"}`), "claude-sonnet-4-5-20250929"},
		{"json model in rpc data", Evidence{RPCMessage: "Internal error: API Error: 529 overloaded", RPCData: `{"details":"API Error: 529","model":"gpt-4.1"}`}, "gpt-4.1"},
		{"json model resource name", txt(`{"error":{"code":503,"status":"UNAVAILABLE"},"model":"models/gemini-2.5-pro"}`), "gemini-2.5-pro"},
		// Gemini
		{"gemini resource", txt("[API Error: models/gemini-2.5-pro is overloaded. Please try again later.]"), "gemini-2.5-pro"},
		{"gemini prose", txt(`{"error":{"code":503,"message":"The model gemini-2.5-flash is overloaded. Please try again later.","status":"UNAVAILABLE"}}`), "gemini-2.5-flash"},
		{"gemini url with method", txt("[GoogleGenerativeAI Error]: Error fetching from https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse: [503 Service Unavailable] The model is overloaded. Please try again later."), "gemini-2.5-pro"},
		{"gemini without a name", txt(`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`), ""},
		// Anthropic, Bedrock, Vertex
		{"anthropic model field", txt(`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded (model: claude-opus-4-1)"}}`), "claude-opus-4-1"},
		{"model at the end of a sentence", txt("Error: the provider is overloaded, model: claude-opus-4-1."), "claude-opus-4-1"},
		{"bedrock model id", txt("An error occurred (ServiceUnavailableException) when calling the InvokeModel operation: Invocation of model ID anthropic.claude-3-5-sonnet-20240620-v1:0 failed: the model is overloaded"), "anthropic.claude-3-5-sonnet-20240620-v1:0"},
		{"vertex publisher resource", txt("Publisher Model `projects/acme-ml-prod/locations/us-east5/publishers/anthropic/models/claude-3-sonnet@20240229` is overloaded"), "claude-3-sonnet@20240229"},
		// Explicit evidence
		{"evidence model wins", Evidence{Model: "claude-opus-4-1", Err: `{"model":"claude-sonnet-4-5"} 529 overloaded`}, "claude-opus-4-1"},
		{"invalid evidence model falls back to the text", Evidence{Model: "/home/alice/model", Err: `{"model":"claude-sonnet-4-5"} 529 overloaded`}, "claude-sonnet-4-5"},
		{"message before stderr", Evidence{RPCMessage: "The model `gpt-4o` is overloaded", StderrTail: `debug {"model":"gpt-4o-mini"}`}, "gpt-4o"},
		// Negatives
		{"no model", txt(`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), ""},
		{"prose without a versioned id", txt("The model itself is overloaded"), ""},
		{"prose without a verb", txt("We asked the model gpt-4o for a summary and got 529 overloaded"), ""},
		{"a secret", txt(`{"model":"sk-ant-api03-abcdefghijklmnopqrstuvwxyz"} overloaded`), ""},
		{"a google key", txt(`{"model":"AIzaSyA1234567890abcdefghijklmnopqrstuv"} overloaded`), ""},
		{"a home path", txt("model: /home/alice/models/llama.gguf overloaded"), ""},
		{"a path in prose", txt("loaded /srv/app/models/user.go: 529 overloaded"), ""},
		{"a relative path", txt("model: ../weights/x1 is overloaded"), ""},
		{"a template", txt("model: ${MODEL} is overloaded"), ""},
		{"a placeholder", txt(`{"model":"undefined"} overloaded`), ""},
		{"a number", txt(`{"model":"42"} overloaded`), ""},
		{"one letter", txt(`{"model":"x"} overloaded`), ""},
		{"too long", txt(`{"model":"` + strings.Repeat("a", 65) + `"} overloaded`), ""},
		{"not an id", txt(`{"model":"gpt 4o"} overloaded`), ""},
		{"key value", txt("model: a=b overloaded"), ""},
		{"a model object", txt(`{"model":{"id":"gpt-4o"}} overloaded`), ""},
		{"model id without a value", txt("You don't have access to the model with the specified model ID."), ""},
		{"debug key=value is not a form", txt("DEBUG stream chunk model=claude-sonnet-4-5 tokens=402913\nAPI Error: 529 overloaded"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Classify(tt.ev, testNow).Model; got != tt.want {
				t.Errorf("model %q, want %q", got, tt.want)
			}
		})
	}
}

// The model does not change what a failure is.
func TestModelKeepsTheClassification(t *testing.T) {
	t.Parallel()
	plain := `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	named := `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"model":"claude-opus-4-1"}`
	a, b := Classify(txt(plain), testNow), Classify(txt(named), testNow)
	if a.Code != b.Code || a.Class != b.Class || a.RuleID != b.RuleID || b.Model != "claude-opus-4-1" || a.Model != "" {
		t.Errorf("without: %s/%s %s %q; with: %s/%s %s %q", a.Code, a.Class, a.RuleID, a.Model, b.Code, b.Class, b.RuleID, b.Model)
	}
	c := Classify(status(503, "The model `gpt-4o` is currently overloaded with other requests."), testNow)
	if c.Class != ClassTransient || c.Model != "gpt-4o" {
		t.Errorf("got %s/%s model %q", c.Code, c.Class, c.Model)
	}
}

// corpusModels are the corpus lines that name a model; every other line
// must name none or a plausible one.
var corpusModels = map[string]string{
	"anth-429-org-itpm-01":    "claude-sonnet-4-5-20250929",
	"anth-404-model-01":       "claude-3-5-sonnet-20241022",
	"gem-429-perday-01":       "gemini-2.5-pro",
	"gem-429-perminute-01":    "gemini-2.5-pro",
	"vtx-429-claude-quota-01": "anthropic-claude-3-5-sonnet-v2",
	"vtx-400-publisher-01":    "claude-3-sonnet@20240229",
	"bed-on-demand-01":        "anthropic.claude-sonnet-4-20250514-v1:0",
	"gem-503-cli-01":          "", // "The model is overloaded"
	"bed-access-denied-01":    "", // "the specified model ID."
	"oai-400-ctx-01":          "", // "This model's maximum context length"
}

func TestCorpusModels(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, l := range loadCorpus(t) {
		m := Classify(corpusEvidence(l), corpusNow).Model
		want, listed := corpusModels[l.ID]
		switch {
		case listed && m != want:
			t.Errorf("%s: model %q, want %q", l.ID, m, want)
		case m != "" && !validModel(m):
			t.Errorf("%s: implausible model %q", l.ID, m)
		case m != "" && !listed:
			t.Logf("%s: names model %q", l.ID, m)
		}
		seen[l.ID] = true
	}
	for id := range corpusModels {
		if !seen[id] {
			t.Errorf("corpus line %s is gone", id)
		}
	}
}

// Hostile repetitions of the model keywords stay cheap and find nothing.
func TestModelHostileRepetition(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"model: ", `"model":"`, "models/", "the model ", "model `", "model id "} {
		s := strings.Repeat(p, (64<<10)/len(p))
		if m := Classify(Evidence{RPCMessage: s, Err: s, StderrTail: s}, testNow).Model; m != "" {
			t.Errorf("%q: model %q", p, m)
		}
	}
}

func TestModelAllocatesNothingWithoutAModel(t *testing.T) {
	ev := Evidence{Err: `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	named := Evidence{Err: `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"model":"claude-sonnet-4-5"}`}
	Classify(ev, testNow) // warm the pool
	base := testing.AllocsPerRun(100, func() { Classify(ev, testNow) })
	with := testing.AllocsPerRun(100, func() { Classify(named, testNow) })
	if with != base {
		t.Errorf("naming a model allocates %v, without %v", with, base)
	}
}
