package devnet

import (
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

// The devnet's own external tests look beneath the façade (the engine's state, the EVM
// module); the product's tests cannot, since these exist only while this package is tested.

func (c *Chain) Engine() *engine.Chain { return c.eng }

func (c *Chain) EVMModule() *evm.Module { return c.evm }
