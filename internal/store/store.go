// Package store is rollgate's storage layer. Ingestion writes through Writer, the API reads
// through Reader, and each backend (SQLite, embedded by default; PostgreSQL for production)
// implements both over one schema applied by versioned migrations.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ErrNotFound is returned by single-row reads when the row does not exist.
var ErrNotFound = errors.New("not found")

// Proposer identifies the validator that proposed a block, resolved at ingest time so the
// block list endpoints never call the chain.
type Proposer struct {
	Moniker         string `json:"moniker"`
	Identity        string `json:"identity"`
	OperatorAddress string `json:"operator_address"`
}

// Block is one indexed block.
type Block struct {
	ChainID     string
	Height      int64
	Hash        []byte    // block_id.hash
	Time        time.Time // header.time, UTC
	BlockTimeMs int64     // milliseconds since the previous block; 0 for the first indexed block
	Proposer    *Proposer // nil when unknown
	GasUsed     int64     // sum over the block's txs
	GasWanted   int64
	TxCount     int
	TotalFee    json.RawMessage // JSON array of coins summed over auth_info.fee.amount; `null` when the block has no txs
}

// TxAccount links an account (raw address bytes, 20 or 32) to a tx.
type TxAccount struct {
	Addr   []byte
	Signer bool // the address of auth_info.signer_infos[0]
}

// Tx is one indexed Cosmos transaction.
type Tx struct {
	Hash     []byte // 32-byte SHA-256 of the tx bytes
	Height   int64
	Index    int             // position in the block
	Signer   []byte          // address of the first signer; nil when unknown
	MsgTypes []string        // message type URLs without the leading '/', in message order (duplicates allowed)
	Accounts []TxAccount     // deduplicated
	JSON     json.RawMessage // the API's Tx object, stored once and served verbatim
}

// BlockBundle is everything ingestion writes for one height.
type BlockBundle struct {
	Block Block
	Txs   []Tx // in block order
}

// Writer is the ingestion side of the store.
type Writer interface {
	// WriteBlocks stores bundles of consecutive ascending heights, assigns each tx its global
	// 1-based sequence, and records the last height as indexed, all in one database
	// transaction: after a crash either every bundle is stored or none is. The first bundle's
	// height must be IndexedHeight()+1 unless the store is empty.
	WriteBlocks(ctx context.Context, bundles []BlockBundle) error
	// IndexedHeight returns the last height written, or 0 for an empty store.
	IndexedHeight(ctx context.Context) (int64, error)
}
