package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackfillTransfersCommand: the command's usage errors, and a run on a store with nothing
// to read (the backfill itself is tested on the captured chains, in conformance).
func TestBackfillTransfersCommand(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "idx.db")
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"needs a store", []string{"backfill-transfers", "--vm-type", "evm"}, 2, "", "--db (DB_DSN) is required"},
		{"needs a vm", []string{"backfill-transfers", "--db", db, "--vm-type", "btc"}, 2, "", `must be evm, move or wasm, not "btc"`},
		{"batch", []string{"backfill-transfers", "--db", db, "--vm-type", "evm", "--batch-heights", "0"}, 2, "", "--batch-heights must be positive"},
		{"empty store", []string{"backfill-transfers", "--db", db, "--vm-type", "wasm"}, 0, "nothing to read", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, out, errb := testEnv(nil)
			if code := run(context.Background(), env, tc.args); code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr %s", code, tc.code, errb)
			}
			if !strings.Contains(out.String(), tc.inStdout) || !strings.Contains(errb.String(), tc.inStderr) {
				t.Errorf("stdout %q, stderr %q; want %q, %q", out, errb, tc.inStdout, tc.inStderr)
			}
		})
	}
}
