package bench

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

// TestStream: the stream benchmark delivers every measured block to every subscriber (in
// process here; `rollgate bench stream` runs them in a child) and reports the figures.
func TestStream(t *testing.T) {
	var out bytes.Buffer
	res, err := Stream(context.Background(), StreamConfig{DSN: "sqlite:" + filepath.Join(t.TempDir(), "s.db"),
		Fixture: testutil.Fixture(t, "minievm-busy"), Subs: 100, Blocks: 4, Speed: 50, ClientsInProcess: true}, &out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// 100 subscribers: with fewer, a few kB per subscriber is within the heap's own noise
	// (the response cache, the pipeline's buffers) between the two readings.
	t.Logf("%+v", res)
	if res.Events != 100*4 || res.P99 <= 0 || res.P50 > res.P99 || res.HeapPerSub <= 0 {
		t.Errorf("%+v", res)
	}
	for _, want := range []string{"100 subscribers", "delivered: 400 of 400 events", "p99", "KiB/subscriber", "load average"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}
