// Package sim re-exports what the product's tests and internal/cli still use of the simulator's
// sim package, now under internal/devnet/internal; it goes once they use the façade.
package sim

import in "github.com/rollgate/rollgate/internal/devnet/internal/sim"

// KVReader reads a module store.
type KVReader = in.KVReader
