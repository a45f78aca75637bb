package engine

import (
	"fmt"
	"math"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// SimulateGasWanted is the gas_wanted a simulation reports: the SDK simulates under an
// infinite gas meter, whose limit is the largest uint64.
const SimulateGasWanted = math.MaxUint64

// Simulate executes a tx as cosmos.tx.v1beta1.Service/Simulate does: against the latest
// committed state as the next block would, with the ante's simulate mode (no signature
// checks, no gas limit), and keeps nothing: state, events, the mempool and the fee
// distribution are as before. A failure is the tx's own (res.Code non-zero), its gas used
// so far in res.GasUsed, as the SDK's error message quotes it.
func (c *Chain) Simulate(raw []byte) TxResult {
	c.mu.RLock()
	defer c.mu.RUnlock()
	height := c.height + 1
	btime := c.cfg.GenesisTime.Add(time.Duration(height-1) * c.cfg.BlockInterval)
	s := &simulation{bank: c.cfg.Bank}
	if f, ok := c.cfg.Bank.(sim.BankForker); ok {
		s.bank = f.ForkFlavor()
	}
	bo := newOverlay(heightView{c.st, c.height})
	return c.execute(bo, height, btime, raw, 0, s)
}

// SimulateError is the message the SDK's tx service answers a failed simulation with
// (x/auth/tx/service.go: the error, then the gas figures).
func SimulateError(r TxResult) string {
	return fmt.Sprintf("%s With gas wanted: '%d' and gas used: '%d' ", r.Log, uint64(SimulateGasWanted), r.GasUsed)
}
