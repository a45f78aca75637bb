// Package opinit re-exports what the product's tests and internal/cli still use of the simulator's
// opinit package, now under internal/devnet/internal; it goes once they use the façade.
package opinit

import in "github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"

// L2Denom re-exports the OPinit denom formula.
var L2Denom = in.L2Denom
