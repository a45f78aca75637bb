package devnet

import (
	"context"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"
)

// TestBridgeStateLevelsOff: with the bridges busy, a devnet that prunes stops growing its
// bridge state once the settled records leave with their blocks (IBC receipts and
// acknowledgements) or past their claim window (withdrawals). The records of the network
// are counted every 25 blocks; the mean over blocks 1625–2400 may not exceed the mean over
// 825–1600 by more than 5 % (the window's own ups and downs average out over 32 counts).
// The control keeps its withdrawals (KeepWithdrawals 0) and must grow by more, so the
// measure can tell the two apart. Before the records were forgotten, receipts and acks grew
// with every delivered packet (~0.4 a block on the L1) and withdrawals with every one
// initiated.
func TestBridgeStateLevelsOff(t *testing.T) {
	if testing.Short() {
		t.Skip("produces thousands of blocks")
	}
	const blocks, every = 2400, 25
	run := func(keep time.Duration) (first, second float64) {
		n := startManual(t, 3, func(c *Config) {
			c.BridgeTraffic, c.RetainBlocks, c.KeepWithdrawals = 0.5, 50, keep
		})
		count := func() int {
			k := 0
			for _, s := range n.cfg.Chains {
				ch, _ := n.Chain(s.ChainID)
				q, err := ch.Engine().Query(ch.Engine().Height())
				if err != nil {
					t.Fatal(err)
				}
				for _, store := range []string{ibc.StoreName, opinit.ChildStore, opinit.HostStore} {
					q.Store(store).Iterate("", func(string, []byte) bool { k++; return true })
				}
			}
			return k
		}
		var sum1, sum2, n1, n2 int
		for i := 1; i <= blocks; i++ {
			if err := n.ProduceBlock(context.Background()); err != nil {
				t.Fatal(err)
			}
			switch {
			case i%every != 0 || i <= blocks/3:
			case i <= 2*blocks/3:
				sum1, n1 = sum1+count(), n1+1
			default:
				sum2, n2 = sum2+count(), n2+1
			}
		}
		return float64(sum1) / float64(n1), float64(sum2) / float64(n2)
	}
	// A withdrawal stays claimable for 2 minutes of block time (240 blocks) after its
	// finalization period: the level is reached long before block 825.
	first, second := run(2 * time.Minute)
	t.Logf("bridge records, mean over blocks 825–1600: %.1f, over 1625–2400: %.1f", first, second)
	if second > first*1.05 {
		t.Errorf("bridge records %.1f → %.1f: still growing", first, second)
	}
	cfirst, csecond := run(0)
	t.Logf("control (withdrawals kept): %.1f → %.1f", cfirst, csecond)
	if csecond <= cfirst*1.05 {
		t.Error("the control did not grow either: the measure cannot tell")
	}
}
