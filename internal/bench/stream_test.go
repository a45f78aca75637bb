package bench

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

// streamChildEnv marks the process TestStream runs its body in.
const streamChildEnv = "ROLLGATE_TEST_STREAM_CHILD"

// TestStream: the stream benchmark delivers every measured block to every subscriber (in
// process here; `rollgate bench stream` runs them in a child) and reports the figures.
//
// It runs in a process of its own, as `rollgate bench stream` does: the memory per subscriber
// is the process's heap with the subscribers against without, and in the package's test
// binary whatever an earlier test left behind for a while was in the reading without them
// (under CI's load it once put that reading 83 MB above the one with 100 subscribers).
func TestStream(t *testing.T) {
	if os.Getenv(streamChildEnv) == "" {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestStream$", "-test.v", "-test.timeout=5m")
		cmd.Env = append(os.Environ(), streamChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the test in its own process: %v\n%s", err, out)
		}
		t.Logf("the test in its own process:\n%s", out)
		return
	}
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
