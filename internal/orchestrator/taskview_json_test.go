package orchestrator

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/orchestratord/orchestratord/internal/store"
)

// requireSameAsEncodingJSON: the task.updated payload (go-json) is
// encoding/json's, bytes and errors.
func requireSameAsEncodingJSON(t *testing.T, v TaskView) {
	t.Helper()
	want, wantErr := json.Marshal(map[string]any{"task": v})
	got, err := encodeTaskUpdated(&v)
	if wantErr != nil {
		require.Error(t, err)
		return
	}
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// fillEvery sets every exported field reachable from v (structs, pointers,
// slices of one) to a value that is not its zero, so that every field of
// TaskView, store.Task and store.Session, and any added later, is checked
// written as encoding/json writes it (tags, omitempty, embedding).
func fillEvery(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 2, 12, 0, n, 123_000_000, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillEvery(v.Field(i), n+i+1)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillEvery(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fillEvery(v.Index(0), n)
		fillEvery(v.Index(1), n+7)
	case reflect.String:
		v.SetString("v" + string(rune('a'+n%26)))
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n*1000 + 7))
	case reflect.Float64:
		v.SetFloat(float64(n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	default:
		panic("taskview_json_test: fill a " + v.Kind().String())
	}
}

func TestTaskUpdatedPayloadCarriesEveryField(t *testing.T) {
	var v TaskView
	fillEvery(reflect.ValueOf(&v).Elem(), 1)
	requireSameAsEncodingJSON(t, v)
	var zero TaskView // every omitempty left out, sessions null
	requireSameAsEncodingJSON(t, zero)
	zero.Sessions = []store.Session{}
	requireSameAsEncodingJSON(t, zero)
}

func TestTaskUpdatedPayloadEscapesAsEncodingJSON(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\r\b\f",
		"\x00\x1f", "héllo wörld", "日本語のタイトル", "line\u2028sep\u2029", "bad \xff\xfe utf-8", "emoji 🚀"} {
		v := tmpViewFor(s)
		requireSameAsEncodingJSON(t, v)
	}
	for _, at := range []time.Time{{}, time.Now(), time.Now().In(berlin), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("odd", 24*3600+60))} {
		v := tmpViewFor("t")
		v.CreatedAt, v.Sessions[0].UpdatedAt = at, at
		requireSameAsEncodingJSON(t, v)
		v.ArchivedAt = &at
		requireSameAsEncodingJSON(t, v)
	}
	for _, f := range []float64{0.5, 30, 1e-7, 1.5e-9, 1e21, 1e20, -3, math.NaN(), math.Inf(1)} {
		v := tmpViewFor("t")
		v.GateDeadlineSeconds = f
		requireSameAsEncodingJSON(t, v)
	}
}

func FuzzTaskUpdatedPayload(f *testing.F) {
	f.Add("fix the <test>", "/home/u/src", "claude-sonnet-4-5", int64(3), int64(412), 0.5, int64(1764676800123456789))
	f.Add("\xff", "", "", int64(-1), int64(0), 1e-9, int64(0))
	f.Fuzz(func(t *testing.T, title, workdir, model string, gen, seq int64, deadline float64, nanos int64) {
		v := tmpViewFor(title)
		v.Workdir, v.Model, v.Sessions[0].Model = workdir, model, model
		v.Sessions[0].Generation, v.Sessions[0].LastSeq, v.GateDeadlineSeconds = gen, seq, deadline
		v.UpdatedAt = time.Unix(0, nanos)
		requireSameAsEncodingJSON(t, v)
	})
}

func tmpViewFor(title string) TaskView {
	now := time.Date(2026, 12, 2, 12, 0, 0, 993598292, time.UTC)
	task := store.Task{ID: "t-7b0f5c1e", Title: title, Agent: "claude", Workdir: "/home/user/src/project",
		State: store.TaskInProgress, CreatedAt: now, UpdatedAt: now}
	return TaskView{Task: task, Sessions: []store.Session{{ID: "s-7b0f5c1e", TaskID: task.ID, State: store.SessionStarting,
		Generation: 3, LastSeq: 412, CreatedAt: now, UpdatedAt: now}}}
}

func BenchmarkTaskUpdatedPayload(b *testing.B) {
	v := tmpViewFor("fix the failing test in internal/store")
	v.Sessions[0].AgentSessionID, v.Model, v.Sessions[0].Model = "a1b2c3d4-7d4a-4f0e-9d7e-2b9d8f0c1a11", "claude-sonnet-4-5", "claude-sonnet-4-5"
	b.Run("go-json", func(b *testing.B) {
		for b.Loop() {
			_, _ = encodeTaskUpdated(&v)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(map[string]any{"task": v})
		}
	})
}
