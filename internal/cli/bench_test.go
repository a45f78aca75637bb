package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
)

// TestBenchCommands runs each benchmark at a tiny size through the command line, checking it
// prints its figures (never their values: timings are not asserted) and rejects bad usage.
func TestBenchCommands(t *testing.T) {
	// The synthetic source only needs a template of real txs: the small capture is enough here
	// (internal/bench owns the busy one).
	capture := testutil.Fixture(t, "minievm")
	db := "sqlite:" + filepath.Join(t.TempDir(), "bench.db")
	tests := []struct {
		name     string
		args     []string
		code     int
		inStdout []string
		inStderr string
	}{
		{"route", []string{"bench", "route", "--chains", "10", "--assets", "60", "--requests", "200"}, 0, []string{"p50", "p99"}, ""},
		{"ingest", []string{"bench", "ingest", "--db", db, "--source", "synthetic", "--txs", "2000", "--fixture", capture, "--log-level", "error"}, 0,
			[]string{"blocks/s", "txs/s"}, ""},
		{"api on the ingested store", []string{"bench", "api", "--db", db, "--txs", "2000", "--transfers", "3000", "--duration", "100ms", "--concurrency", "2", "--log-level", "error"}, 0,
			[]string{"tx_by_hash", "transfers_account_in", "p99"}, ""},
		// The test binary cannot be the subscriber process: the subscribers run in process here.
		{"stream on the capture", []string{"bench", "stream", "--subs", "5", "--blocks", "3", "--speed", "20", "--fixture", capture, "--clients-in-process", "--log-level", "error"}, 0,
			[]string{"5 subscribers", "delivered: 15 of 15 events", "p99"}, ""},
		{"stream on the devnet", []string{"bench", "stream", "--source", "devnet", "--interval", "50ms", "--subs", "5", "--blocks", "3", "--clients-in-process", "--log-level", "error"}, 0,
			[]string{"the chain at http://", "delivered: 15 of 15 events", "p99"}, ""},
		{"stream source", []string{"bench", "stream", "--source", "disk"}, 2, nil, "--source must be capture or devnet"},
		{"stream subscribers", []string{"bench", "stream", "--subs", "0"}, 2, nil, "--subs, --blocks and --speed must be positive"},
		{"no benchmark named", []string{"bench"}, 2, nil, "a benchmark is required"},
		{"unknown benchmark", []string{"bench", "disk"}, 2, nil, `unknown benchmark "disk"`},
		{"ingest needs a store", []string{"bench", "ingest"}, 2, nil, "--db (DB_DSN) is required"},
		{"EVM receipts need the busy source", []string{"bench", "ingest", "--db", db, "--evm"}, 2, nil, "--evm and --internal-txs need --source busy"},
		{"internal txs need the receipts", []string{"bench", "ingest", "--db", db, "--source", "busy", "--internal-txs"}, 2, nil, "--internal-txs needs --evm"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errb := testEnv(nil)
			if code := run(context.Background(), env, tc.args); code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr %s", code, tc.code, errb)
			}
			for _, s := range tc.inStdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if !strings.Contains(errb.String(), tc.inStderr) {
				t.Errorf("stderr %q lacks %q", errb, tc.inStderr)
			}
		})
	}
}
