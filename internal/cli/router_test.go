package cli

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/testutil"
)

// TestRouterCommandServesRegistry runs `rollgate router` over the router's test registry and
// asks it for the chain list, as a wallet does first.
func TestRouterCommandServesRegistry(t *testing.T) {
	reg := filepath.Join(testutil.RepoRoot(t), "internal", "router", "registry", "testdata", "registry")
	addr := freeAddr(t)
	env, _, errb := testEnv(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, env, []string{"router", "--registry", reg, "--listen", addr, "--refresh", "0", "--log-level", "warn",
			"--track-db", "sqlite:" + filepath.Join(t.TempDir(), "track.db")})
	}()
	var body string
	for i := 0; i < 100; i++ {
		time.Sleep(50 * time.Millisecond)
		resp, err := http.Get("http://" + addr + "/v2/info/chains")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
		body = string(b)
		break
	}
	if !strings.Contains(body, `"chain_id":"initia-devnet-1"`) {
		t.Fatalf("chains answer lacks the L1: %.300s (stderr %s)", body, errb)
	}
	// The tracker is wired in: an unknown tx is a 404 JSON error, not a missing route.
	resp, err := http.Get("http://" + addr + "/v2/tx/status?chain_id=initia-devnet-1&tx_hash=" + strings.Repeat("AB", 32))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), `"TX_NOT_FOUND"`) {
		t.Fatalf("status of an unknown tx: %d %s", resp.StatusCode, b)
	}
	// and its counters are on /metrics.
	resp, err = http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, m := range []string{"rollgate_track_upstream_calls_total", "rollgate_track_blocks_scanned_total", "rollgate_track_transfers_held"} {
		if !strings.Contains(string(b), m) {
			t.Errorf("/metrics lacks %s", m)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, errb)
	}
}

func TestRouterCommandNeedsRegistry(t *testing.T) {
	env, _, errb := testEnv(nil)
	if code := run(context.Background(), env, []string{"router"}); code != 2 || !strings.Contains(errb.String(), "--registry") {
		t.Fatalf("code %d stderr %q", code, errb)
	}
	env, _, errb = testEnv(nil)
	if code := run(context.Background(), env, []string{"router", "--registry", t.TempDir() + "/missing", "--listen", "127.0.0.1:0"}); code != 1 || !strings.Contains(errb.String(), "load registry") {
		t.Fatalf("code %d stderr %q", code, errb)
	}
}

// TestRouterLogs: the router says what it loaded, logs requests only with --access-log, and
// says when it stops.
func TestRouterLogs(t *testing.T) {
	reg := filepath.Join(testutil.RepoRoot(t), "internal", "router", "registry", "testdata", "registry")
	for _, access := range []bool{false, true} {
		t.Run(map[bool]string{false: "quiet", true: "access_log"}[access], func(t *testing.T) {
			addr := freeAddr(t)
			env, _, errb := testEnv(nil)
			ctx, cancel := context.WithCancel(context.Background())
			args := []string{"router", "--registry", reg, "--listen", addr, "--refresh", "0", "--track-db", "off"}
			if access {
				args = append(args, "--access-log")
			}
			done := make(chan int, 1)
			go func() { done <- run(ctx, env, args) }()
			ok := false
			for i := 0; i < 100 && !ok; i++ {
				time.Sleep(50 * time.Millisecond)
				resp, err := http.Get("http://" + addr + "/v2/info/chains")
				if err == nil {
					resp.Body.Close()
					ok = resp.StatusCode == 200
				}
			}
			cancel()
			if code := <-done; code != 0 || !ok {
				t.Fatalf("exit code %d, served %v; stderr %s", code, ok, errb)
			}
			logs := errb.String()
			for _, want := range []string{`msg="registry loaded"`, "chains=6", "assets=", `msg="router started"`, `msg="router stopped"`} {
				if !strings.Contains(logs, want) {
					t.Errorf("no %s in:\n%s", want, logs)
				}
			}
			if got := strings.Contains(logs, `msg="http request" method=GET path=/v2/info/chains status=200`); got != access {
				t.Errorf("access line logged %v with --access-log %v:\n%s", got, access, logs)
			}
		})
	}
}
