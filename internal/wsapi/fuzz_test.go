package wsapi

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeRequest: any frame yields either a request with an action or a
// typed BAD_REQUEST, never a panic.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{
		`{"id":"1","type":"request","action":"task.list"}`,
		`{"id":"2","type":"request","action":"session.subscribe","payload":{"session_id":"s","after_seq":3}}`,
		`{"type":"response"}`, `{"id":1}`, `[]`, `null`, `"x"`, `{`, ``, `{"payload":null,"type":"request","action":"a"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := decodeRequest(data)
		if err != nil {
			if err.Code != CodeBadRequest || err.Message == "" {
				t.Fatalf("decodeRequest(%q) = %+v", data, err)
			}
			return
		}
		if req.action == "" {
			t.Fatalf("decodeRequest(%q) accepted a request without action", data)
		}
		var p struct {
			SessionID string `json:"session_id"`
			AfterSeq  *int64 `json:"after_seq"`
		}
		if perr := decodePayload(req.payload, &p); perr != nil && perr.Code != CodeValidationError {
			t.Fatalf("decodePayload(%s) = %+v", req.payload, perr)
		}
		if req.payload != nil && !json.Valid(req.payload) {
			t.Fatalf("payload %q is not valid JSON", req.payload)
		}
	})
}
