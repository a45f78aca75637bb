package e2e

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/router/track"
)

// TestTrackLoad tracks a fleet of transfers at once on the devnet (20 and 2,000; 20 and 200
// with -short), the tracker stepped after every block. It shows that the tracker's upstream
// calls per scanned block do not grow with the number of transfers, and that every transfer is
// terminal within 2 blocks of its last chain event (the acknowledgement or the deposit's
// finalization).
func TestTrackLoad(t *testing.T) {
	sizes := []int{20, 2000}
	if testing.Short() {
		sizes = []int{20, 200}
	}
	perBlock := map[int]float64{}
	for _, size := range sizes {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			n := startTrackNet(t, "")
			n.t = t
			fs := n.fleet(size)
			start := time.Now()
			for _, f := range fs {
				if _, err := n.tr.Track(n.ctx, f.chainID, f.hash); err != nil {
					t.Fatal(err)
				}
			}
			register := time.Since(start)
			// Catch up with the blocks so far, so the counts below cover one block per chain per step.
			if err := n.tr.Step(n.ctx); err != nil {
				t.Fatal(err)
			}
			n.broadcastAll(fs)
			base := n.tr.Stats()
			terminalAt := map[string]int{} // hash → step at which its status turned terminal
			blockTimes := map[string]int{} // block time (RFC 3339) → step that produced it
			var evalTime time.Duration
			for step := 1; len(terminalAt) < len(fs); step++ {
				if step > maxSteps {
					t.Fatalf("%d of %d terminal after %d blocks: %v", len(terminalAt), len(fs), maxSteps, states(t, n.st, fs))
				}
				if err := n.tn.step(n.ctx); err != nil {
					t.Fatal(err)
				}
				blk, err := n.rpc[l1ID].Block(n.ctx, 0)
				if err != nil {
					t.Fatal(err)
				}
				blockTimes[blk.Block.Header.Time.UTC().Format(time.RFC3339)] = step
				s := time.Now()
				if err := n.tr.Step(n.ctx); err != nil {
					t.Fatal(err)
				}
				evalTime += time.Since(s)
				for _, f := range fs {
					if _, ok := terminalAt[f.hash]; ok {
						continue
					}
					tr, err := n.st.Get(n.ctx, f.chainID, f.hash)
					if err != nil {
						t.Fatal(err)
					}
					if track.Terminal(tr.State) {
						terminalAt[f.hash] = step
					}
				}
			}
			st := n.tr.Stats()
			calls, blocks, evals := st.Calls-base.Calls, st.Blocks-base.Blocks, st.Evaluations-base.Evaluations
			perBlock[size] = float64(calls) / float64(blocks)
			// Lag: blocks between a transfer's last chain event and its terminal status.
			var lags []int
			for _, f := range fs {
				tr, _ := n.st.Get(n.ctx, f.chainID, f.hash)
				var s track.StatusResponse
				if err := json.Unmarshal(tr.Doc, &s); err != nil {
					t.Fatal(err)
				}
				if s.State != f.want {
					t.Fatalf("%s: %s, want %s", f.hash, s.State, f.want)
				}
				last := lastEventTime(s)
				at, ok := blockTimes[last]
				if !ok {
					t.Fatalf("%s: last event at %s is not a block this test produced", f.hash, last)
				}
				lags = append(lags, terminalAt[f.hash]-at)
			}
			sort.Ints(lags)
			if lags[len(lags)-1] > 2 {
				t.Errorf("a transfer turned terminal %d blocks after its last chain event", lags[len(lags)-1])
			}
			t.Logf("%d transfers: registered in %s; %d blocks scanned with %d upstream calls (%.2f per block), %d evaluations in %s (tracker time) = %.0f evaluations/s; terminal-after-last-event lag in blocks: p50 %d, max %d",
				size, register.Round(time.Millisecond), blocks, calls, perBlock[size], evals, evalTime.Round(time.Millisecond),
				float64(evals)/evalTime.Seconds(), lags[len(lags)/2], lags[len(lags)-1])
		})
	}
	if len(perBlock) == len(sizes) && perBlock[sizes[1]] > perBlock[sizes[0]] {
		t.Errorf("upstream calls per block grew with the number of transfers: %v", perBlock)
	}
}

// lastEventTime is the time of the last chain event of a single-hop transfer: the sender's
// acknowledgement or timeout of an IBC hop, the finalization of a deposit.
func lastEventTime(s track.StatusResponse) string {
	h := s.TransferSequence[len(s.TransferSequence)-1]
	switch {
	case h.IBCTransfer != nil && h.IBCTransfer.PacketTxs.AcknowledgeTx != nil:
		return h.IBCTransfer.PacketTxs.AcknowledgeTx.OnChainAt
	case h.IBCTransfer != nil && h.IBCTransfer.PacketTxs.TimeoutTx != nil:
		return h.IBCTransfer.PacketTxs.TimeoutTx.OnChainAt
	case h.OPInitTransfer != nil && h.OPInitTransfer.Txs.ReceiveTx != nil:
		return h.OPInitTransfer.Txs.ReceiveTx.OnChainAt
	}
	return ""
}
