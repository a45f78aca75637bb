package move

import (
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

// newFakeChain is the shared fake engine as the minimove capture's chain, at a fixed block
// time (the Move handlers' events carry no block time, so the capture's is not needed).
func newFakeChain() *simtest.Chain {
	f := simtest.NewChain("local-move-1", "init")
	f.Now = time.Unix(1795252706, 0).UTC()
	return f
}
