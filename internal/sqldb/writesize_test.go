package sqldb

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestWriteSizeHalvesAndGrows: transient failures halve the size down to one, a permanent one
// leaves it, and commits double it back to the bound (then no limit).
func TestWriteSizeHalvesAndGrows(t *testing.T) {
	transient := &pgconn.PgError{Code: "57P01"}
	permanent := &pgconn.PgError{Code: "42703"}
	var s WriteSize
	steps := []struct {
		tried     int
		err       error
		wantSplit bool
		wantTake  int // Take(100) afterwards
	}{
		{100, nil, false, 100},
		{100, transient, true, 50},
		{50, transient, true, 25},
		{25, transient, true, 12},
		{12, permanent, false, 12},
		{12, transient, true, 6},
		{6, transient, true, 3},
		{3, transient, true, 1},
		{1, transient, false, 1},
		{1, nil, false, 2},
		{2, nil, false, 4},
		{4, nil, false, 8},
		{8, nil, false, 16},
		{16, nil, false, 32},
		{32, nil, false, 64},
		{64, nil, false, 100},
	}
	for i, st := range steps {
		if split := s.Done(st.tried, 100, st.err); split != st.wantSplit {
			t.Fatalf("step %d: split %v, want %v", i, split, st.wantSplit)
		}
		if got := s.Take(100); got != st.wantTake {
			t.Fatalf("step %d: Take(100) = %d, want %d", i, got, st.wantTake)
		}
	}
	if s.Take(7) != 7 {
		t.Fatal("take must not exceed what is available")
	}
}
