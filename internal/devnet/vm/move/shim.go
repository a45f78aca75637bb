// Package move re-exports what the product's tests and internal/cli still use of the simulator's
// move package, now under internal/devnet/internal; it goes once they use the façade.
package move

import in "github.com/rollgate/rollgate/internal/devnet/internal/vm/move"

// StoreName is the Move module store.
const StoreName = in.StoreName

// Addr is a Move address.
type Addr = in.Addr

// Re-exported helpers.
var (
	AccAddr        = in.AccAddr
	ParseAddr      = in.ParseAddr
	CollectionAddr = in.CollectionAddr
	NftAddr        = in.NftAddr
)
