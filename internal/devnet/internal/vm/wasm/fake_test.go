package wasm

import "github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"

// newFakeChain is the shared fake engine as the miniwasm capture's chain; tests set its
// block time.
func newFakeChain() *simtest.Chain { return simtest.NewChain("local-wasm-1", "init") }
