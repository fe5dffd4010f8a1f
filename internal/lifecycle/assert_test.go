package lifecycle

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Small assertion helpers: testify would need a go.sum entry this module
// does not carry (go.yaml.in/yaml/v3).

func msg(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if f, ok := args[0].(string); ok {
		return ": " + fmt.Sprintf(f, args[1:]...)
	}
	return ": " + fmt.Sprint(args...)
}

func equal(t *testing.T, want, got any, args ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("want %#v, got %#v%s", want, got, msg(args))
	}
}

func check(t *testing.T, cond bool, args ...any) {
	t.Helper()
	if !cond {
		t.Errorf("check failed%s", msg(args))
	}
}

func require(t *testing.T, cond bool, args ...any) {
	t.Helper()
	if !cond {
		t.Fatalf("requirement failed%s", msg(args))
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v (evidence %+v)", err, evidenceOf(err))
	}
}

func contains(t *testing.T, s, sub string, args ...any) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%q does not contain %q%s", s, sub, msg(args))
	}
}

func empty(t *testing.T, v any, args ...any) {
	t.Helper()
	if rv := reflect.ValueOf(v); v != nil && rv.Len() != 0 {
		t.Errorf("want empty, got %#v%s", v, msg(args))
	}
}
