package ingest

import (
	"testing"
	"time"
)

// TestBlockTimeMs: block_time subtracts microsecond-truncated times, as rollytics does.
func TestBlockTimeMs(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		prev, cur string
		want      int64
	}{
		// minievm-busy heights 227 → 228: 10.049999907 s exact, 10.050000 s truncated (rollytics 10050).
		{"2026-11-21T09:30:09.123474418Z", "2026-11-21T09:30:19.173474325Z", 10050},
		// minievm heights 71 → 72: the same either way (rollytics 10049).
		{"2026-11-21T09:03:03.320941204Z", "2026-11-21T09:03:13.370892825Z", 10049},
		{"2026-11-21T09:00:00Z", "2026-11-21T09:00:00.5Z", 500},
		{"2026-11-21T09:00:00.000000999Z", "2026-11-21T09:00:00.001000001Z", 1},
	}
	for _, c := range cases {
		if got := blockTimeMs(at(c.cur), at(c.prev)); got != c.want {
			t.Errorf("%s → %s: %d ms, want %d", c.prev, c.cur, got, c.want)
		}
	}
}
