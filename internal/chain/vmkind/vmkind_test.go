package vmkind

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, k := range All {
		got, err := Parse(k.String())
		if err != nil || got != k || !k.Valid() {
			t.Errorf("Parse(%q) = %q, %v", k, got, err)
		}
	}
	for _, s := range []string{"", "EVM", "cosmos", " move"} {
		_, err := Parse(s)
		if err == nil || !strings.Contains(err.Error(), "want evm, move or wasm") {
			t.Errorf("Parse(%q): err %v, want the list of kinds", s, err)
		}
		if Kind(s).Valid() {
			t.Errorf("Kind(%q).Valid() = true", s)
		}
	}
}
