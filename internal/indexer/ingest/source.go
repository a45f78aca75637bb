package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrFutureHeight reports that the chain has not produced the requested height yet. Sources
// must wrap it (errors.Is) so the pipeline waits at the tip instead of counting an error.
var ErrFutureHeight = errors.New("height not yet available")

// ErrInvalidData reports an upstream answer that cannot be turned into a bundle (undecodable
// tx bytes, a tx without REST JSON, mismatched result counts). It is retried a few times, in
// case a node behind a load balancer lags, and then stops the pipeline.
var ErrInvalidData = errors.New("invalid chain data")

// RawBlock is what ingestion needs from CometBFT `/block`.
type RawBlock struct {
	ChainID         string
	Height          int64
	Hash            []byte // block_id.hash
	LastHash        []byte // header.last_block_id.hash: the previous block's hash (nil at the first height)
	Time            time.Time
	ProposerAddress []byte   // header.proposer_address (consensus address)
	Txs             [][]byte // data.txs, decoded from base64
}

// TxResult is one entry of CometBFT `/block_results` txs_results.
type TxResult struct {
	Code      uint32
	Codespace string
	Data      []byte
	Log       string
	Info      string
	GasWanted int64
	GasUsed   int64
	Events    []Event
}

// Validator is one entry of the OPinit `/opinit/opchild/v1/validators` list.
type Validator struct {
	Moniker         string
	OperatorAddress string
	// ConsensusPubKeyType is the Any type URL of consensus_pubkey, e.g.
	// "/cosmos.crypto.ed25519.PubKey"; ConsensusPubKey its raw key bytes.
	ConsensusPubKeyType string
	ConsensusPubKey     []byte
}

// Source is the upstream chain as the pipeline sees it. Implementations do their own
// transport-level retries; the pipeline retries whole heights on top.
type Source interface {
	// LatestHeight is the chain head (CometBFT `/status` latest_block_height).
	LatestHeight(ctx context.Context) (int64, error)
	// Block is CometBFT `/block?height=h`.
	Block(ctx context.Context, height int64) (*RawBlock, error)
	// BlockResults is CometBFT `/block_results?height=h` txs_results, in block order.
	BlockResults(ctx context.Context, height int64) ([]TxResult, error)
	// BlockTxs is the `txs` array of REST `/cosmos/tx/v1beta1/txs/block/{h}`, every page,
	// each element the chain's own `{body, auth_info, signatures}` JSON, unmodified.
	BlockTxs(ctx context.Context, height int64) ([]json.RawMessage, error)
	// Validators is the OPinit validator set (REST `/opinit/opchild/v1/validators`).
	Validators(ctx context.Context) ([]Validator, error)
}
