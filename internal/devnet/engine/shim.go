// Package engine re-exports what the product's tests and internal/cli still use of the simulator's
// engine package, now under internal/devnet/internal; it goes once they use the façade.
package engine

import in "github.com/rollgate/rollgate/internal/devnet/internal/engine"

// Kinds of chain.
type Kind = in.Kind

// The chain kinds.
const (
	KindL1   = in.KindL1
	KindEVM  = in.KindEVM
	KindMove = in.KindMove
	KindWasm = in.KindWasm
)

// Chain is one simulated chain.
type Chain = in.Chain

// DeriveKey derives test key i of a seed.
var DeriveKey = in.DeriveKey
