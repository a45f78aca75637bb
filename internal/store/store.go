// Package store is rollgate's storage layer. Ingestion writes through Writer, the API reads
// through Reader, and each backend (SQLite, embedded by default; PostgreSQL for production)
// implements both over one schema applied by versioned migrations. The package holds that
// schema (migrations/) and its queries; opening, migrating, the pools and the classification
// of database errors are the SQL layer's (internal/sqldb).
package store

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned by single-row reads when the row does not exist.
var ErrNotFound = errors.New("not found")

// ErrHeightGap is returned by WriteBlocks when the bundles do not continue the stored chain
// (a gap after IndexedHeight, or heights that are not consecutive and ascending).
var ErrHeightGap = errors.New("heights are not consecutive")

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
	LastHash    []byte    // header.last_block_id.hash, the parent's: WriteBlocks checks it (identity.go), never stores it; nil skips the check
	Time        time.Time // header.time, UTC
	BlockTimeMs int64     // milliseconds since the previous block; 0 for the first indexed block
	Proposer    *Proposer // nil when unknown
	GasUsed     int64     // sum over the block's txs
	GasWanted   int64
	TxCount     int
	TotalFee    json.RawMessage // JSON array of coins summed over auth_info.fee.amount; `[]` without fees (rollytics answers `[]` even for empty blocks: see the captured rollytics answers)
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
	// Extensions are the rows of the extensions that write their own tables (extension.go),
	// at most one of each kind: the EVM txs (EVMRows, evm.go), the NFT index (NFTRows), the
	// rich list (RichListChanges) and the transfers index (TransferRows), or those of an
	// extension that declares its rows and tables beside its ingest side (ExtensionTable). An
	// extension that is off adds none.
	Extensions []ExtensionRows
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

// CursorKind says which key a Cursor carries.
type CursorKind int

// The cursor kinds; the zero value means "no cursor".
const (
	CursorNone     CursorKind = iota
	CursorSequence            // a tx sequence, the native key of tx lists
	CursorHeight              // a block height, the native key of the block list
)

// Cursor is a keyset position: the page starts strictly after it, in the page's order.
// Both kinds work on every list: a height cursor on a tx list means "after that block's txs",
// a sequence cursor on the block list means "after the block holding that tx".
type Cursor struct {
	Kind  CursorKind
	Value int64
}

// The page sizes of every list, as rollytics': DefaultPageLimit rows when none is asked for,
// at most MaxPageLimit (the API validates).
const (
	DefaultPageLimit = 100
	MaxPageLimit     = 1000
)

// Page selects one page of an ordered list.
type Page struct {
	Limit      int   // rows per page, 1..MaxPageLimit; 0 means DefaultPageLimit
	Desc       bool  // newest first
	Offset     int64 // rows to skip; ignored when After is set
	After      Cursor
	CountTotal bool // fill the result's Total; false leaves it 0
}

// TxFilter narrows a tx list. The zero value lists every tx.
type TxFilter struct {
	Account    []byte // raw address bytes; nil means any account
	SignerOnly bool   // with Account: only txs the account signed
	Height     int64  // 0 means any height
	// MinHeight and MaxHeight bound the heights, inclusive (a time range resolved by
	// HeightRange); 0 leaves that side open. Not combined with Height by the API.
	MinHeight, MaxHeight int64
	// MsgTypes keeps txs holding at least one of these type URLs, matched exactly; a leading
	// '/' is optional ("/cosmos.bank.v1beta1.MsgSend" and "cosmos.bank.v1beta1.MsgSend" match
	// the same txs).
	// nil means no filter; a non-nil list whose types are all unknown yields no tx.
	MsgTypes []string
}

// TxRecord is one stored tx as the API serves it.
type TxRecord struct {
	Sequence int64
	Height   int64
	JSON     json.RawMessage // the stored Tx object, byte for byte
}

// TxPage is one page of txs. Total is exact (see Reader.Txs) or 0 when not counted.
type TxPage struct {
	Txs   []TxRecord
	Total int64
	// Final: no later write can change this answer to the same request (see finalPage), so
	// the API may serve it as pinned.
	Final bool
}

// BlockPage is one page of blocks; Total is the number of indexed blocks, or 0 when not counted.
type BlockPage struct {
	Blocks []Block
	Total  int64
	// Final: no later write can change this answer to the same request (see finalPage).
	Final bool
}

// Reader is the API side of the store. Every list is a keyset query on a unique key (height
// or tx sequence); an Offset is turned into a key by arithmetic where the keys are dense
// (blocks, all txs, txs of one height) and otherwise skipped on a covering index. Totals are
// exact: the dense cases are arithmetic, the filtered ones a COUNT on the edge index.
type Reader interface {
	// IndexedHeight returns the last height written, or 0 for an empty store.
	IndexedHeight(ctx context.Context) (int64, error)
	// IndexedHeightNow is IndexedHeight when it needs no read (this process committed it, or
	// read it within the last 100 ms): what IndexedHeight would return then; ok is false when
	// only IndexedHeight can say.
	IndexedHeightNow() (height int64, ok bool)
	// Block returns one block or ErrNotFound.
	Block(ctx context.Context, height int64) (Block, error)
	// Blocks returns a page of blocks ordered by height.
	Blocks(ctx context.Context, p Page) (BlockPage, error)
	// AvgBlockTime returns, in seconds, (newest time - oldest time) / (k-1) over the latest
	// k = min(n, indexed blocks) blocks; 0 with fewer than two blocks.
	AvgBlockTime(ctx context.Context, n int) (float64, error)
	// Tx returns the tx with that hash (the first one if the hash occurs twice) or ErrNotFound.
	Tx(ctx context.Context, hash []byte) (TxRecord, error)
	// Txs returns a page of txs ordered by sequence.
	Txs(ctx context.Context, f TxFilter, p Page) (TxPage, error)
	// TxCount returns the number of txs stored up to the indexed height.
	TxCount(ctx context.Context) (int64, error)
	// HeightRange turns a time range into the heights whose block time lies in it: from the
	// first block at or after start (a zero start: 1) to the last block at or before end (a
	// zero end: the indexed height). empty is true when no block lies in the range.
	HeightRange(ctx context.Context, start, end time.Time) (lo, hi int64, empty bool, err error)
	NFTReader
	SearchReader
}

// Store is a backend: both sides plus maintenance.
type Store interface {
	Reader
	Writer
	EVMReader
	RichListReader
	TransferReader
	// Dump writes every table's rows in a canonical order and text form, so two stores
	// holding the same data dump to the same bytes.
	Dump(ctx context.Context, w io.Writer) error
	Close() error
}
