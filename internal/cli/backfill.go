package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
)

// runBackfillTransfers fills the transfers index of the heights a store holds from before the
// index existed, from the stored txs' events (no chain access), in bounded batches that each
// commit with their progress: stopped, it resumes where it left off; beside a running
// indexer it shares the store's writer lock batch by batch.
func runBackfillTransfers(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "backfill-transfers")
	var dsn, vm, prefix string
	var batch int64
	f.String(&dsn, "db", "", "store DSN: sqlite:<path> or postgres://... (required)", "DB_DSN")
	f.String(&vm, "vm-type", "", "the chain's VM: evm, move or wasm (required)", "VM_TYPE")
	f.String(&prefix, "account-prefix", "init", "bech32 account prefix", "ACCOUNT_ADDRESS_PREFIX")
	f.Int64(&batch, "batch-heights", 100, "heights read and written per transaction")
	if err := f.parse(args); err != nil {
		return err
	}
	if dsn == "" {
		return usagef("--db (DB_DSN) is required")
	}
	kind, err := vmkind.Parse(vm)
	if err != nil {
		return usagef("--vm-type (VM_TYPE) must be evm, move or wasm, not %q", vm)
	}
	if batch <= 0 {
		return usagef("--batch-heights must be positive")
	}
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	last := time.Time{}
	st, err := ingest.BackfillTransfers(ctx, db, ingest.BackfillReading(profile.TransferVM(kind), prefix), batch, func(st store.TransferBackfill) {
		if st.End >= max(st.Start, 1) && (st.Done() || time.Since(last) >= 2*time.Second) {
			last = time.Now()
			fmt.Fprintf(env.Stdout, "transfers backfill: heights %d..%d, next %d, %d transfers written\n", st.Start, st.End, st.Next, st.Rows)
		}
	})
	if err != nil {
		return err
	}
	if st.End < max(st.Start, 1) {
		fmt.Fprintln(env.Stdout, "transfers backfill: nothing to read (every stored height has its transfers)")
		return nil
	}
	fmt.Fprintf(env.Stdout, "transfers backfill done: heights %d..%d, %d transfers in %v\n", st.Start, st.End, st.Rows, time.Since(start).Truncate(time.Millisecond))
	return nil
}
