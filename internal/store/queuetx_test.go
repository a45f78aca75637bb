package store

import (
	"slices"
	"testing"
)

// padTuples must keep the tuples it was given, in order, and only repeat the last one.
func TestPadTuples(t *testing.T) {
	for n := 0; n <= 9; n++ {
		var args []any
		for i := range n {
			args = append(args, i, []byte{byte(i)})
		}
		out := padTuples(slices.Clone(args), 2)
		m := len(out) / 2
		if n > 0 && (m < n || m&(m-1) != 0) {
			t.Fatalf("n=%d: %d tuples, want the power of two ≥ %d", n, m, n)
		}
		for i := range out {
			j := i
			if j >= len(args) {
				j = len(args) - 2 + i%2 // the last tuple's column
			}
			want := args[j]
			if fmtAny(out[i]) != fmtAny(want) {
				t.Fatalf("n=%d: arg %d = %v, want %v", n, i, out[i], want)
			}
		}
	}
}

func fmtAny(v any) string { return canonScope([]any{v}) }
