package devnettest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// The crash loop re-executes this test binary as the ingesting process (see TestMain); these
// variables tell the child which rollup to ingest, from where, into which store.
const (
	childEnv     = "ROLLGATE_DEVNETTEST_CHILD"
	childDSN     = "ROLLGATE_DEVNETTEST_DSN"
	childKind    = "ROLLGATE_DEVNETTEST_KIND"
	childChainID = "ROLLGATE_DEVNETTEST_CHAIN"
	childRPC     = "ROLLGATE_DEVNETTEST_RPC"
	childREST    = "ROLLGATE_DEVNETTEST_REST"
	childJSONRPC = "ROLLGATE_DEVNETTEST_JSONRPC"
	childStop    = "ROLLGATE_DEVNETTEST_STOP"
)

// childTimeout is the child's per-attempt HTTP timeout: under the devnet's fault hang, so a
// hung call is abandoned and retried.
const childTimeout = 250 * time.Millisecond

// runChild ingests one rollup exactly as the tests' in-process runs do (ingestChain), with
// the timeouts a faulty devnet needs, until the stop height or its SIGKILL.
func runChild() int {
	stop, err := strconv.ParseInt(os.Getenv(childStop), 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	db, err := store.Open(ctx, os.Getenv(childDSN), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	defer db.Close()
	ep := devnet.ChainEndpoints{RPC: os.Getenv(childRPC), REST: os.Getenv(childREST), JSONRPC: os.Getenv(childJSONRPC)}
	r := rollup{kind: os.Getenv(childKind), chainID: os.Getenv(childChainID)}
	// Small write batches, so kills land all along the chain (the clean reference is written
	// with the defaults: the dumps must not depend on batching either).
	small := func(c *ingest.Config) { c.MaxBatchBlocks, c.Concurrency = 3, 2 }
	w := paced{DB: db, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(os.Getpid())))}
	if err := ingestChainWith(ctx, ep, r, w, stop, small, httpx.WithTimeout(childTimeout), httpx.WithBackoff(5*time.Millisecond, 50*time.Millisecond)); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// paced waits 2-10 ms before each write, so a child's kills land all along the chain however
// fast ingestion is: without it the devnet's 61 small blocks can go by between two of the
// parent's 2 ms polls of the indexed height, and a kill aimed at a height lands at the tip.
type paced struct {
	*store.DB
	rng *rand.Rand // the one writer goroutine uses it
}

func (p paced) WriteBlocks(ctx context.Context, bundles []store.BlockBundle) error {
	time.Sleep(time.Duration(2000+p.rng.IntN(8000)) * time.Microsecond)
	return p.DB.WriteBlocks(ctx, bundles)
}

// crashLoop ingests rollup r of n into the store at dsn (SQLite: the parent watches its
// indexed height while the child writes) through child processes, SIGKILLing `kills` of them
// once they have written past heights spread evenly over what is left (or after a random 0.5-2 s, should the
// child be slow to get there), plus a few random milliseconds, so kills
// land inside and between write transactions; then it lets one child run to the tip. It
// returns the indexed height after each kill that landed before the child finished.
func crashLoop(ctx context.Context, n *devnet.Network, r rollup, dsn string, kills int, rng *rand.Rand) ([]int64, error) {
	ep := n.Endpoints()[r.chainID]
	env := append(os.Environ(), childEnv+"=1", childDSN+"="+dsn, childKind+"="+r.kind, childChainID+"="+r.chainID,
		childRPC+"="+ep.RPC, childREST+"="+ep.REST, childJSONRPC+"="+ep.JSONRPC, childStop+"="+strconv.Itoa(tip))
	var landed []int64
	at := int64(0)
	for k := 1; k <= kills; k++ {
		// Spread the kills over what is left: a kill aimed at a fixed height lands wherever
		// the child got to by then, and the next child may start past the next fixed height.
		target := at + max(1, (tip-at)/int64(kills-k+2))
		by := time.Duration(500+rng.IntN(1500)) * time.Millisecond
		exited, err := runChildUntil(ctx, env, dsn, target, by, time.Duration(rng.IntN(10))*time.Millisecond)
		if err != nil {
			return landed, fmt.Errorf("child %d: %w", k, err)
		}
		if exited {
			return landed, nil
		}
		h, err := indexedHeight(ctx, dsn)
		if err != nil {
			return landed, err
		}
		if len(landed) > 0 && h < landed[len(landed)-1] {
			return landed, fmt.Errorf("indexed height went back from %d to %d after a kill", landed[len(landed)-1], h)
		}
		landed = append(landed, h)
		at = h
	}
	if exited, err := runChildUntil(ctx, env, dsn, -1, 0, 0); err != nil || !exited {
		return landed, fmt.Errorf("final child: exited=%v: %w", exited, err)
	}
	return landed, nil
}

// runChildUntil starts a child and SIGKILLs it extra after its store's indexed height reached
// target or by has passed since its start (target < 0: never), unless it exits first; exited
// reports a clean exit.
func runChildUntil(ctx context.Context, env []string, dsn string, target int64, by, extra time.Duration) (exited bool, err error) {
	// The parent's view of the indexed height is opened before the child starts (opening a
	// store takes longer than the child needs for dozens of blocks) and reads the row itself:
	// store.DB's IndexedHeight may answer from its 100 ms cache, while the child writes on.
	var height func() (int64, error)
	if target >= 0 {
		h, closeFn, err := heightReader(ctx, dsn)
		if err != nil {
			return false, err
		}
		defer closeFn()
		height = h
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return false, err
	}
	deadline := time.Now().Add(by)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	finished := func(err error) (bool, error) {
		if err != nil {
			return false, fmt.Errorf("%w: %s", err, stderr.String())
		}
		return true, nil
	}
	kill := func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done //nolint:errcheck // killed: its exit error says only that
	}
	if target < 0 {
		select {
		case err := <-done:
			return finished(err)
		case <-ctx.Done():
			kill()
			return false, ctx.Err()
		}
	}
	for {
		select {
		case err := <-done:
			return finished(err)
		case <-ctx.Done():
			kill()
			return false, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		if h, err := height(); (err == nil && h >= target) || time.Now().After(deadline) {
			break
		}
	}
	select {
	case err := <-done:
		return finished(err)
	case <-time.After(extra):
		kill()
		return false, nil
	}
}

// heightReader reads the indexed height of the SQLite store at dsn (migrated first, so a child
// finds its schema) straight from its row, uncached.
func heightReader(ctx context.Context, dsn string) (func() (int64, error), func(), error) {
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		return nil, nil, err
	}
	_ = db.Close()
	raw, err := testutil.OpenRawStore(dsn)
	if err != nil {
		return nil, nil, err
	}
	read := func() (int64, error) {
		var h int64
		err := raw.QueryRowContext(ctx, "SELECT height FROM indexed_height WHERE id = 1").Scan(&h)
		return h, err
	}
	return read, func() { _ = raw.Close() }, nil
}

func indexedHeight(ctx context.Context, dsn string) (int64, error) {
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return db.IndexedHeight(ctx)
}
