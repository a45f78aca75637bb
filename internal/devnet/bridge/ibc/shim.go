// Package ibc re-exports what the product's tests and internal/cli still use of the simulator's
// ibc package, now under internal/devnet/internal; it goes once they use the façade.
package ibc

import in "github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"

// Names re-exported.
const (
	StoreName = in.StoreName
	NFTPort   = in.NFTPort
	NFTModule = in.NFTModule
)

// Re-exported helpers.
var (
	VoucherClass     = in.VoucherClass
	NFTClasses       = in.NFTClasses
	NFTTraces        = in.NFTTraces
	NFTEscrowAddress = in.NFTEscrowAddress
)
