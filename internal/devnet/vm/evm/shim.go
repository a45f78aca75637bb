// Package evm re-exports what the product's tests and internal/cli still use of the simulator's
// evm package, now under internal/devnet/internal; it goes once they use the façade.
package evm

import in "github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"

// StoreName is the EVM module store.
const StoreName = in.StoreName

// Re-exported helpers.
var (
	Pack           = in.Pack
	ERC721Code     = in.ERC721Code
	ICS721Contract = in.ICS721Contract
)
