package textclip

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

type stringer string

func (s stringer) String() string { return string(s) }

// TestClip: echoed input is cut on a character boundary and marked; short input is kept.
func TestClip(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	if got := Clip(long); len(got) > MaxEcho+len("…") || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") {
		t.Errorf("Clip: %d bytes %q", len(got), got)
	}
	if got := Clip("short"); got != "short" {
		t.Errorf("Clip(short) = %q", got)
	}
	if got := To("abcdef", 3); got != "abc…" {
		t.Errorf("To(abcdef, 3) = %q", got)
	}
}

// TestArgs: every long string, error or Stringer argument is clipped, the others are passed
// as they are, and the caller's slice is never written to.
func TestArgs(t *testing.T) {
	long := strings.Repeat("x", 500)
	in := []any{long, errors.New(long), stringer(long), 42, "short"}
	out := Args(in)
	if in[0] != long {
		t.Error("Args wrote to its argument")
	}
	for i := range 3 {
		if s := fmt.Sprint(out[i]); len(s) > MaxEcho+len("…") {
			t.Errorf("arg %d: %d bytes", i, len(s))
		}
	}
	if out[3] != 42 || out[4] != "short" {
		t.Errorf("kept args changed: %v %v", out[3], out[4])
	}
	short := []any{"a", 1}
	if got := Args(short); &got[0] != &short[0] {
		t.Error("nothing to clip: not the same slice")
	}
}
