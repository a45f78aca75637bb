package ingest

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
)

// Config tunes the pipeline. The zero value of every field means its documented default
// (WithDefaults fills them in), so callers set only what they map from flags or rollytics'
// environment variables.
type Config struct {
	// ChainID is written as each block's chain_id (env CHAIN_ID). Empty: the header's chain_id.
	ChainID string
	// VMType is "evm", "move" or "wasm" (env VM_TYPE; chain/vmkind). The pipeline itself does
	// not act on it: what a VM adds to ingestion is in Extensions, which its profile
	// (internal/indexer/profile) picks from it.
	VMType string
	// Extensions are the optional parts of ingestion this chain runs (NFTs, EVM txs, the rich
	// list, internal txs), as its VM profile chose them, in order. nil: the core only.
	Extensions []Extension
	// AccountPrefix is the bech32 account prefix (env ACCOUNT_ADDRESS_PREFIX). Default "init".
	AccountPrefix string
	// StartHeight is where an empty store starts (env START_HEIGHT). 0 or 1: height 1. It is
	// ignored once the store holds blocks: ingestion resumes at IndexedHeight()+1.
	StartHeight int64

	// Concurrency is the number of heights fetched at once (each height is three requests).
	// Default 8, which keeps two cores busy decoding without flooding a node.
	Concurrency int
	// Window is how many heights may be fetched ahead of the last height taken by the writer
	// (memory bound). Default 4×Concurrency.
	Window int
	// MaxBatchBlocks and MaxBatchTxs bound one WriteBlocks call (one database transaction).
	// Defaults 200 blocks and 5000 txs (a batch closes at the block that reaches the limit).
	// A batch is handed to the writer as soon as the previous write has finished, so it only
	// grows while catching up; at the tip every block is written on its own.
	MaxBatchBlocks int
	MaxBatchTxs    int

	// LocalTxJSON renders each tx's `tx` JSON from the block's raw bytes (chain/txcodec, the
	// REST API's own rendering) instead of asking REST `/cosmos/tx/v1beta1/txs/block/{h}`,
	// saving one upstream call per block. A block holding a message type outside the
	// project's proto subset still goes to REST. Default false: REST, as rollytics does.
	LocalTxJSON bool

	// PollInterval is how often the chain head is polled at the tip. Default 500 ms.
	PollInterval time.Duration
	// RetryMin and RetryMax bound the exponential backoff between attempts at one height.
	// Defaults 200 ms and 10 s.
	RetryMin time.Duration
	RetryMax time.Duration
	// MaxInvalidAttempts is how many times a height whose data cannot be decoded is retried
	// before Run fails. Default 5. Transport errors are retried without limit.
	MaxInvalidAttempts int
	// MaxWriteAttempts is how many times a WriteBlocks failing with a permanent error is tried
	// before Run fails (logged at error; the command exits non-zero). Default 5. Transient
	// database errors (store.IsTransient) are retried without limit.
	MaxWriteAttempts int
	// ProgressInterval is how often progress is logged while catching up (at debug level at
	// the tip). Default 5 s.
	ProgressInterval time.Duration
	// SummaryInterval is how often a pipeline following the tip logs a summary line, its only
	// periodic info line there. Default 1 min.
	SummaryInterval time.Duration
	// ValidatorRefresh is the minimum time between two fetches of the validator list when a
	// proposer is unknown. Default 1 min.
	ValidatorRefresh time.Duration
	// ReadyMaxLag is the most blocks behind the chain head the pipeline may be and still
	// report ready (Ready, /readyz). Default 20.
	ReadyMaxLag int64
	// ReadyStaleAfter is how long the chain may go unanswered, or a pipeline behind the head
	// go without writing, before it reports not ready. Default 30 s.
	ReadyStaleAfter time.Duration
	// RichList asks the VM profile for the rich-list extension, which keeps the list current with every block (env RICH_LIST): balances
	// bootstrapped from genesis when starting at height 1 (from the chain's state at
	// StartHeight otherwise), then changed by each block's ERC-20 Transfer logs (EVM),
	// fungible-asset deposit/withdraw events (Move) or bank coinbase/burn/transfer events
	// (Wasm) in the block's own transaction.
	RichList bool
	// ExtensionWait is how long core ingestion waits, at most, for an extension's start-up
	// read (the rich list's starting balances) before it goes on without it; the extension
	// then starts in the background. Default 10 s.
	ExtensionWait time.Duration
	// ExtensionAttemptTimeout bounds one background attempt to start an extension (reading
	// genesis, or every account's balances at a height), so a source that hangs is tried
	// again with backoff. Default 5 min.
	ExtensionAttemptTimeout time.Duration
	// OnChainMismatch is what the pipeline does when the node serves another chain than the
	// store holds (a reset under the same chain id, a repointed node, a fork after a
	// rollback; env ON_CHAIN_MISMATCH): "halt" (the default) writes nothing more and reports
	// CHAIN_MISMATCH until the node serves the stored chain again; "reindex" drops the store's
	// data and indexes the new chain from its first height, as a fresh run would.
	OnChainMismatch string
	// ChainRecheck is how often a pipeline halted on a mismatch, or waiting for a node behind
	// the store, asks the node again. Default 30 s (a node behind: PollInterval).
	ChainRecheck time.Duration
	// BehindBlocks and BehindGrace are how far and how long the node's head may be below the
	// store's before it is UPSTREAM_BEHIND: a load-balanced RPC whose backends are a block or
	// two apart answers now one, now the other, and a head BehindBlocks or fewer below for
	// less than BehindGrace is waited for quietly, as a head that has not moved. Defaults 5
	// blocks and 10 s; a node further below, or below for longer, is UPSTREAM_BEHIND at once.
	BehindBlocks int64
	BehindGrace  time.Duration
	// StopAtHeight, when > 0, makes Run return nil once this height is written and the rich
	// list (when kept) has reached it too (tests, backfills).
	StopAtHeight int64
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.AccountPrefix == "" {
		c.AccountPrefix = "init"
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.MaxBatchBlocks <= 0 {
		c.MaxBatchBlocks = 200
	}
	if c.MaxBatchTxs <= 0 {
		c.MaxBatchTxs = 5000
	}
	if c.Window <= 0 {
		c.Window = 4 * c.Concurrency
	}
	if c.Window < c.Concurrency {
		c.Window = c.Concurrency
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 500 * time.Millisecond
	}
	if c.RetryMin <= 0 {
		c.RetryMin = 200 * time.Millisecond
	}
	if c.RetryMax <= 0 {
		c.RetryMax = 10 * time.Second
	}
	if c.RetryMax < c.RetryMin {
		c.RetryMax = c.RetryMin
	}
	if c.MaxInvalidAttempts <= 0 {
		c.MaxInvalidAttempts = 5
	}
	if c.MaxWriteAttempts <= 0 {
		c.MaxWriteAttempts = 5
	}
	if c.ProgressInterval <= 0 {
		c.ProgressInterval = 5 * time.Second
	}
	if c.ReadyMaxLag <= 0 {
		c.ReadyMaxLag = 20
	}
	if c.ReadyStaleAfter <= 0 {
		c.ReadyStaleAfter = 30 * time.Second
	}
	if c.SummaryInterval <= 0 {
		c.SummaryInterval = time.Minute
	}
	if c.ExtensionWait <= 0 {
		c.ExtensionWait = 10 * time.Second
	}
	if c.ExtensionAttemptTimeout <= 0 {
		c.ExtensionAttemptTimeout = 5 * time.Minute
	}
	if c.ValidatorRefresh <= 0 {
		c.ValidatorRefresh = time.Minute
	}
	if c.OnChainMismatch == "" {
		c.OnChainMismatch = OnMismatchHalt
	}
	if c.ChainRecheck <= 0 {
		c.ChainRecheck = 30 * time.Second
	}
	if c.BehindBlocks <= 0 {
		c.BehindBlocks = 5
	}
	if c.BehindGrace <= 0 {
		c.BehindGrace = 10 * time.Second
	}
	return c
}

// The choices of Config.OnChainMismatch.
const (
	OnMismatchHalt    = "halt"
	OnMismatchReindex = "reindex"
)

// Validate reports settings that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.VMType != "" {
		if _, err := vmkind.Parse(c.VMType); err != nil {
			errs = append(errs, err)
		}
	}
	if c.StartHeight < 0 {
		errs = append(errs, fmt.Errorf("start height %d is negative", c.StartHeight))
	}
	switch c.OnChainMismatch {
	case "", OnMismatchHalt, OnMismatchReindex:
	default:
		errs = append(errs, fmt.Errorf("on chain mismatch must be %q or %q, not %q", OnMismatchHalt, OnMismatchReindex, c.OnChainMismatch))
	}
	return errors.Join(errs...)
}
