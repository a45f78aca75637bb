package cli

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/testutil"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// capturedIndexer runs `rollgate indexer` with args as an operator would (rollytics'
// environment variable names, the captured minievm chain replayed upstream) and returns its
// address, the captured chain's top, the upstream's URL, its stderr and stop, which cancels
// the command as Ctrl-C would and checks it exits cleanly.
func capturedIndexer(t *testing.T, args ...string) (addr string, top int64, upURL string, errb *testutil.SyncBuffer, stop func()) {
	t.Helper()
	dir := testutil.Fixture(t, "minievm")
	probe, err := replay.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	top = probe.CapturedMaxHeight()
	// The captured /status was taken at an earlier height than the last captured block;
	// MaxHeight makes the replayed chain report its real top.
	// NFT ingestion asks name()/tokenURI() at the Transfer logs' heights; the capture holds
	// them at its last height only (see replay.HeightFallback).
	rp, err := replay.New(dir, replay.MaxHeight(func() int64 { return top }), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(rp)
	t.Cleanup(up.Close)
	addr = freeAddr(t)
	env, _, errb := testEnv(map[string]string{
		"CHAIN_ID": "local-evm-1", "VM_TYPE": "evm", "RPC_URL": up.URL, "REST_URL": up.URL, "JSON_RPC_URL": up.URL,
		"DB_DSN": "sqlite:" + filepath.Join(t.TempDir(), "idx.db"),
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, env, append([]string{"indexer", "--listen", addr, "--log-level", "warn"}, args...))
	}()
	stop = func() {
		t.Helper()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("exit code %d after shutdown; stderr:\n%s", code, errb)
			}
		case <-time.After(15 * time.Second):
			t.Fatal("indexer did not stop after cancellation")
		}
	}
	return addr, top, up.URL, errb, stop
}

// TestIndexerCommandFollowsCapturedChain runs `rollgate indexer` until /status reports the
// captured chain's top, then stops it with the context as Ctrl-C would.
func TestIndexerCommandFollowsCapturedChain(t *testing.T) {
	addr, top, upURL, errb, stop := capturedIndexer(t)
	defer stop()
	deadline := time.Now().Add(60 * time.Second)
	var height int64
	for time.Now().Before(deadline) && height < top {
		time.Sleep(100 * time.Millisecond)
		resp, err := http.Get("http://" + addr + "/status")
		if err != nil {
			continue
		}
		var st struct {
			ChainID  string `json:"chain_id"`
			Height   int64  `json:"height"`
			Internal int64  `json:"internal_tx_height"`
			RichList int64  `json:"rich_list_height"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		// The blocks, the internal-tx follower (from JSON_RPC_URL) and the rich list (on by
		// default) all reach the top.
		height = min(st.Height, st.Internal, st.RichList)
	}
	if height != top {
		t.Fatalf("indexed height (min of height, internal_tx_height, rich_list_height) %d, want %d; stderr:\n%s", height, top, errb)
	}
	// The receipts came with the blocks: the captured chain's 33 EVM txs.
	resp, err := http.Get("http://" + addr + "/indexer/tx/v1/evm-txs?pagination.limit=1")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Pagination struct{ Total string } `json:"pagination"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if list.Pagination.Total != "33" {
		t.Errorf("evm-txs total %q, want 33", list.Pagination.Total)
	}
	// At the tip: ready, and the upstream series are registered on the command's registry.
	for _, c := range []struct{ path, want string }{
		{"/readyz", `"status":"ready"`},
		{"/metrics", `rollgate_ingest_upstream_attempts_total{result="ok",upstream="rpc",url="` + upURL + `"}`},
		{"/metrics", `rollgate_ingest_upstream_attempt_seconds_count{upstream="rest"`},
	} {
		resp, err := http.Get("http://" + addr + c.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: %d, no %s in:\n%.3000s", c.path, resp.StatusCode, c.want, b)
		}
	}
}

// TestIndexerIngestModeServes runs `rollgate indexer --mode ingest` over a replayed chain: the
// ingest-only process serves liveness, readiness and metrics through the API's HTTP layer
// (its JSON shapes, its request metrics, its JSON 404 for the API's routes, which run
// elsewhere in this mode).
func TestIndexerIngestModeServes(t *testing.T) {
	addr, _, _, errb, stop := capturedIndexer(t, "--mode", "ingest")
	defer stop()
	get := func(path string) (int, string, http.Header) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error(), nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	// Ingestion reaches the captured top: then ready.
	code, body := 0, ""
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && code != 200; {
		time.Sleep(100 * time.Millisecond)
		code, body, _ = get("/readyz")
	}
	if code != 200 || body != `{"status":"ready"}`+"\n" {
		t.Fatalf("/readyz %d %q; stderr:\n%s", code, body, errb)
	}
	for _, c := range []struct {
		path   string
		status int
		want   string
	}{
		{"/healthz", 200, `{"status":"ok"}`},
		{"/status", 404, `{"code":5,"message":"Cannot GET /status","details":[]}`},
		{"/metrics", 200, `rollgate_ingest_upstream_attempt_seconds_count{upstream="rest"`},
		{"/metrics", 200, `rollgate_indexer_api_requests_total{code="200",route="GET /readyz"}`},
	} {
		code, body, h := get(c.path)
		if code != c.status || !strings.Contains(body, c.want) || c.path != "/metrics" && h.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d, no %s in:\n%.3000s", c.path, code, c.want, body)
		}
	}
}

func TestIndexerCommandRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		args []string
		want string
	}{
		{"no chain id", nil, nil, "--chain-id (CHAIN_ID) is required"},
		{"bad vm", map[string]string{"CHAIN_ID": "c", "VM_TYPE": "solana"}, nil, "must be evm, move or wasm"},
		{"bad mode", map[string]string{"CHAIN_ID": "c", "VM_TYPE": "evm"}, []string{"--mode", "both"}, "--mode must be ingest, api or all"},
		{"ingest needs upstreams", map[string]string{"CHAIN_ID": "c", "VM_TYPE": "evm"}, nil, "--rpc-url (RPC_URL) and --rest-url (REST_URL) are required"},
		{"evm ingest needs json-rpc", map[string]string{"CHAIN_ID": "c", "VM_TYPE": "evm", "RPC_URL": "http://x", "REST_URL": "http://x"}, nil, "--json-rpc-url (JSON_RPC_URL) is required"},
		{"internal txs on move", map[string]string{"CHAIN_ID": "c", "VM_TYPE": "move", "INTERNAL_TX": "true"}, []string{"--mode", "api"}, "--internal-tx (INTERNAL_TX) is for EVM chains only"},
		{"bad internal tx", map[string]string{"CHAIN_ID": "c", "VM_TYPE": "evm", "INTERNAL_TX": "maybe"}, []string{"--mode", "api"}, `must be true or false, not "maybe"`},
		{"bad env number", map[string]string{"START_HEIGHT": "ten"}, nil, `START_HEIGHT="ten"`},
		{"negative retention", map[string]string{"CHAIN_ID": "c", "VM_TYPE": "wasm", "ROLLGATE_RETAIN_HEIGHTS": "-5"}, []string{"--mode", "api"}, "--retain-heights (ROLLGATE_RETAIN_HEIGHTS) must be 0 (keep all) or more, not -5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errb := testEnv(tc.vars)
			if code := run(context.Background(), env, append([]string{"indexer"}, tc.args...)); code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q, want %q", errb, tc.want)
			}
		})
	}
}

// TestIndexerAPIModeNeedsMigratedStore: an API replica neither creates nor migrates the store;
// it says to run `rollgate migrate`, and once that ran it serves.
func TestIndexerAPIModeNeedsMigratedStore(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			dsn := "sqlite:" + filepath.Join(t.TempDir(), "idx.db")
			if backend == "postgres" {
				dsn = testutil.PostgresDSN(t)
			}
			vars := map[string]string{"CHAIN_ID": "c-1", "VM_TYPE": "move", "DB_DSN": dsn}
			addr := freeAddr(t)
			env, _, errb := testEnv(vars)
			if code := run(context.Background(), env, []string{"indexer", "--mode", "api", "--listen", addr}); code != 1 {
				t.Fatalf("api mode on an unmigrated store: exit code %d, want 1; stderr:\n%s", code, errb)
			}
			if !strings.Contains(errb.String(), "rollgate migrate") {
				t.Fatalf("stderr does not name `rollgate migrate`:\n%s", errb)
			}
			if backend == "sqlite" {
				if _, err := os.Stat(strings.TrimPrefix(dsn, "sqlite:")); !os.IsNotExist(err) {
					t.Fatalf("the replica created the store file: %v", err)
				}
			}

			env, out, errb := testEnv(vars)
			if code := run(context.Background(), env, []string{"migrate"}); code != 0 || !strings.Contains(out.String(), "migrations applied") {
				t.Fatalf("migrate: exit %d, stdout %q, stderr %q", code, out, errb)
			}

			env, _, errb = testEnv(vars)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, env, []string{"indexer", "--mode", "api", "--listen", addr, "--log-level", "info"})
			}()
			var status int
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && status != http.StatusOK; {
				time.Sleep(50 * time.Millisecond)
				if resp, err := http.Get("http://" + addr + "/indexer/block/v1/blocks?pagination.limit=1"); err == nil {
					status = resp.StatusCode
					resp.Body.Close()
				}
			}
			cancel()
			if code := <-done; code != 0 || status != http.StatusOK {
				t.Fatalf("api mode after migrate: status %d, exit %d; stderr:\n%s", status, code, errb)
			}
			// A stop is logged last, once the store is closed.
			checkLastLogLine(t, errb.String(), "indexer stopped")
		})
	}
}
