package devnet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/testutil/faults"
)

// TestTimerProductionWithConcurrentReaders: blocks come from the timer while clients read;
// every block a reader sees is complete (its results match its txs).
func TestTimerProductionWithConcurrentReaders(t *testing.T) {
	cfg := standalone()
	cfg.Chains = []devnet.ChainSpec{{ChainID: "evm-live-1", Kind: devnet.KindEVM}, {ChainID: "l1-live-1", Kind: devnet.KindL1}}
	cfg.BlockInterval = 20 * time.Millisecond
	net, err := devnet.Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for _, ch := range net.Chains() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc, _ := comet.New(ch.Endpoints.RPC, opts()...)
			ctx := context.Background()
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) {
				h, err := cc.LatestHeight(ctx)
				if err != nil {
					errs <- err
					return
				}
				b, err := cc.Block(ctx, h)
				if err != nil {
					errs <- err
					return
				}
				r, err := cc.BlockResults(ctx, h)
				if err != nil {
					errs <- err
					return
				}
				if len(r.TxsResults) != len(b.Block.Data.Txs) {
					errs <- fmt.Errorf("%s height %d: %d txs, %d results", ch.Spec.ChainID, h, len(b.Block.Data.Txs), len(r.TxsResults))
					return
				}
				if h >= 8 {
					return
				}
			}
			errs <- fmt.Errorf("%s did not reach height 8", ch.Spec.ChainID)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestNetworkFaultsHook: the network's injector fails real endpoint calls when switched on.
func TestNetworkFaultsHook(t *testing.T) {
	net := startNet(t, 2, 2, devnet.ChainSpec{ChainID: "l1-faults-1", Kind: devnet.KindL1})
	e := net.Endpoints()["l1-faults-1"]
	net.Faults().SetKinds(faults.Error500)
	net.Faults().SetRate(1)
	net.Faults().SetEnabled(true)
	if status, _ := get(t, e.RPC+"/status"); status != 500 {
		t.Fatalf("status %d with faults on", status)
	}
	net.Faults().SetKinds(faults.Truncate)
	_, body := get(t, e.REST+"/cosmos/base/tendermint/v1beta1/blocks/latest")
	var v any
	if json.Unmarshal(body, &v) == nil {
		t.Fatal("truncate fault served valid JSON")
	}
	net.Faults().SetEnabled(false)
	if status, _ := get(t, e.RPC+"/status"); status != 200 {
		t.Fatalf("status %d with faults off", status)
	}
}
