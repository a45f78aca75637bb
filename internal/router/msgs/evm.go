package msgs

import (
	"encoding/hex"

	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// evmTx is a bridge's EVM call as the evm_tx the signer on chain sends (data: hex without 0x).
func evmTx(chain *registry.Chain, signer string, c *bridge.EVMCall) *EVMTx {
	tx := &EVMTx{ChainID: chain.ID, To: c.To, Value: c.Value, Data: hex.EncodeToString(c.Data), SignerAddress: signer,
		RequiredERC20Approvals: []ERC20Approval{}}
	for _, a := range c.Approvals {
		tx.RequiredERC20Approvals = append(tx.RequiredERC20Approvals, ERC20Approval{TokenContract: a.TokenContract, Spender: a.Spender, Amount: a.Amount})
	}
	return tx
}
