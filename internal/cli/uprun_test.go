package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/testutil"
)

// upRun is a `rollgate up` a test started on random ports.
type upRun struct {
	eps       upEndpoints
	out, errb *testutil.SyncBuffer
	cancel    context.CancelFunc
	done      chan int
	once      sync.Once
	code      int
}

// startUp runs `rollgate up` on random ports in dir, with args after them, and waits up to
// within for its URL table and endpoints.json (written before the table is printed). Without
// them it stops up and fails t.
func startUp(t *testing.T, dir string, within time.Duration, args ...string) *upRun {
	t.Helper()
	env, out, errb := testEnv(nil)
	ctx, cancel := context.WithCancel(context.Background())
	u := &upRun{out: out, errb: errb, cancel: cancel, done: make(chan int, 1)}
	go func() {
		u.done <- run(ctx, env, append([]string{"up", "--data-dir", dir, "--port-base", "0",
			"--indexer-port-base", "0", "--router-port", "0", "--registry-port", "0"}, args...))
	}()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(out.String(), "ROUTER") {
			if b, err := os.ReadFile(filepath.Join(dir, "endpoints.json")); err == nil && json.Unmarshal(b, &u.eps) == nil {
				break
			}
		}
	}
	if u.eps.Router == "" {
		u.stop(t)
		t.Fatalf("up did not print its URLs and endpoints.json within %v; stdout %s stderr %s", within, out, errb)
	}
	return u
}

// stop ends up as Ctrl-C does and returns its exit code; -1 (and an error on t) when it did
// not stop within 20 s. Only the first call stops: a deferred stop after a checked one is a
// no-op returning the same code.
func (u *upRun) stop(t *testing.T) int {
	t.Helper()
	u.once.Do(func() {
		u.cancel()
		select {
		case u.code = <-u.done:
		case <-time.After(20 * time.Second):
			t.Error("up did not stop within 20 s")
			u.code = -1
		}
	})
	return u.code
}
