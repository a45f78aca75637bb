// Package wasm re-exports what the product's tests and internal/cli still use of the simulator's
// wasm package, now under internal/devnet/internal; it goes once they use the façade.
package wasm

import in "github.com/rollgate/rollgate/internal/devnet/internal/vm/wasm"

// StoreName is the Wasm module store.
const StoreName = in.StoreName

// ICS721Contract re-exports the wasm helper.
var ICS721Contract = in.ICS721Contract
