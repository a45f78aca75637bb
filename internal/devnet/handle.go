package devnet

import (
	"fmt"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

// Kind is the flavour of a chain: what its ChainSpec asks for and what its endpoints report.
// It is the engine's kind, and so chain/vmkind's Kind: a rollup's kind is the value the
// product compares (KindEVM == vmkind.EVM); KindL1 and KindCosmos are the chains that run no
// rollup VM.
type Kind = engine.Kind

// The chain kinds a ChainSpec may name.
const (
	KindL1     = engine.KindL1
	KindEVM    = engine.KindEVM
	KindMove   = engine.KindMove
	KindWasm   = engine.KindWasm
	KindCosmos = engine.KindCosmos
)

// ID is the chain id.
func (c *Chain) ID() string { return c.Spec.ChainID }

// Kind is the chain's flavour.
func (c *Chain) Kind() Kind { return c.Spec.Kind }

// RPC is the chain's CometBFT RPC URL.
func (c *Chain) RPC() string { return c.Endpoints.RPC }

// REST is the chain's Cosmos REST (gRPC-gateway) URL.
func (c *Chain) REST() string { return c.Endpoints.REST }

// JSONRPC is the chain's Ethereum JSON-RPC URL ("" unless the chain is an EVM rollup).
func (c *Chain) JSONRPC() string { return c.Endpoints.JSONRPC }

// Height is the chain's latest committed height.
func (c *Chain) Height() int64 { return c.eng.Height() }

// Key is the chain's i-th funded genesis key as a txcodec key (see Network.Key).
func (c *Chain) Key(i int) (*txcodec.PrivKey, error) {
	if i < 0 || i >= len(c.eng.Accounts()) {
		return nil, fmt.Errorf("devnet: %s has no genesis key %d", c.Spec.ChainID, i)
	}
	return txcodec.NewPrivKey(c.keyType(), c.eng.Key(i).Bytes())
}

// Broadcast submits a signed tx (TxRaw bytes) to the chain's mempool as broadcast_tx_sync
// does: a non-zero code is CheckTx's refusal, with its log. The tx lands in the next block.
func (c *Chain) Broadcast(tx []byte) (hash [32]byte, code uint32, log string) {
	r := c.eng.BroadcastTxSync(tx)
	return r.Hash, r.Code, r.Log
}

func (c *Chain) keyType() txcodec.KeyType {
	if c.Spec.CosmosKeys {
		return txcodec.Secp256k1
	}
	return txcodec.EthSecp256k1
}

// SeedKey is key index of a network seed's key sequence (genesis accounts from 0, users from
// UserKeyIndex): what a client needs to sign as an account the devnet funded, without a
// running network. cosmosKeys picks plain secp256k1 (external chains) over eth_secp256k1.
func SeedKey(seed uint64, index int, cosmosKeys bool) (*txcodec.PrivKey, error) {
	k, err := engine.DeriveKey(seed, index, !cosmosKeys)
	if err != nil {
		return nil, err
	}
	typ := txcodec.EthSecp256k1
	if cosmosKeys {
		typ = txcodec.Secp256k1
	}
	return txcodec.NewPrivKey(typ, k.Bytes())
}
