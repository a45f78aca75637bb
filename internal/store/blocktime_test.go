package store

import (
	"context"
	"testing"
	"time"
)

// TestAvgBlockTimeMicroseconds: the average is taken over times truncated to microseconds,
// as rollytics reads them back from PostgreSQL. The times are heights 1 and 72 of the
// captured minievm chain; their exact difference is 106.135129731 s, the truncated one
// 106.135129 s.
func TestAvgBlockTimeMicroseconds(t *testing.T) {
	forEach(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		t1 := time.Date(2026, 11, 21, 9, 1, 27, 235763094, time.UTC)
		t2 := time.Date(2026, 11, 21, 9, 3, 13, 370892825, time.UTC)
		var bs []BlockBundle
		for i, tm := range []time.Time{t1, t2} {
			bs = append(bs, BlockBundle{Block: Block{ChainID: "c", Height: int64(i + 1), Hash: []byte{byte(i)}, Time: tm, TotalFee: []byte("[]")}})
		}
		if err := db.WriteBlocks(ctx, bs); err != nil {
			t.Fatal(err)
		}
		avg, err := db.AvgBlockTime(ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		if want := 106135129 / 1e6; avg != want {
			t.Errorf("avg = %v, want %v (exact nanoseconds would give 106.135129731)", avg, want)
		}
		if b, err := db.Block(ctx, 2); err != nil || !b.Time.Equal(t2) {
			t.Errorf("block 2 time = %v, %v: the stored time keeps nanoseconds", b.Time, err)
		}
	})
}
