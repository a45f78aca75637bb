package store

// The identity of the chain the store holds (table chain_identity, migration 0009) and the
// continuity check of every write: a chain reset under the same chain id, a node repointed at
// another network or a fork after a rollback must never mix into the store. Each bundle's
// parent hash (last_block_id.hash, already in the header ingestion fetched) must be the hash
// stored at the height below it, and its chain id the one the store was started with.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// ErrChainMismatch is what a *ChainMismatchError matches with errors.Is.
var ErrChainMismatch = errors.New("chain mismatch")

// ChainMismatchError says the node serves another chain than the store holds: WriteBlocks
// returns it (writing nothing) and ingestion builds it from what it reads at start.
type ChainMismatchError struct {
	// Height is the stored height the two chains disagree on, Stored its hash in the store
	// and Got the node's hash for it: the node's block at Height, or, when NodeHeight is
	// Height+1, the parent hash (last_block_id.hash) of the node's next block.
	Height     int64
	Stored     []byte
	Got        []byte
	NodeHeight int64
	// StoredChainID and GotChainID are set when the chain ids themselves differ.
	StoredChainID, GotChainID string
}

func (e *ChainMismatchError) Error() string {
	if e.StoredChainID != e.GotChainID {
		return fmt.Sprintf("chain mismatch: the store holds chain %q, the node's block %d is of chain %q",
			e.StoredChainID, e.NodeHeight, e.GotChainID)
	}
	if e.NodeHeight == e.Height+1 {
		return fmt.Sprintf("chain mismatch: stored block %d is %s, but the node's block %d follows %s at height %d",
			e.Height, HashHex(e.Stored), e.NodeHeight, HashHex(e.Got), e.Height)
	}
	return fmt.Sprintf("chain mismatch: stored block %d is %s, the node's block %d is %s",
		e.Height, HashHex(e.Stored), e.NodeHeight, HashHex(e.Got))
}

// Is makes errors.Is(err, ErrChainMismatch) true.
func (e *ChainMismatchError) Is(target error) bool { return target == ErrChainMismatch }

// HashHex renders a block hash as CometBFT does: upper-case hex.
func HashHex(h []byte) string { return strings.ToUpper(hex.EncodeToString(h)) }

// ChainIdentity is the identity of the chain a store holds, recorded with its first block.
type ChainIdentity struct {
	ChainID     string
	FirstHeight int64  // the first block ever stored (pruning does not move it)
	FirstHash   []byte // its block_id.hash
	// InitialHeight and InitialHash are the chain's initial block when ingestion started above
	// it and the node served it (SetInitialBlock); 0 and nil otherwise.
	InitialHeight int64
	InitialHash   []byte
}

// ChainIdentity returns the identity of the stored chain; ok is false for an empty store.
func (d *DB) ChainIdentity(ctx context.Context) (id ChainIdentity, ok bool, err error) {
	id, err = readIdentity(ctx, d.be.Reader())
	if errors.Is(err, ErrNotFound) {
		return ChainIdentity{}, false, nil
	}
	return id, err == nil, err
}

// BlockHash returns the stored hash of one height, or ErrNotFound (not stored, or pruned).
func (d *DB) BlockHash(ctx context.Context, height int64) ([]byte, error) {
	var h []byte
	if err := queryRow(ctx, d.be.Reader(), "SELECT hash FROM block WHERE height = ?", []any{height}, &h); err != nil {
		return nil, err
	}
	return h, nil
}

// SetInitialBlock records the chain's initial block in the identity (a store whose first
// block is above it). A store without identity yet (empty) ignores it.
func (d *DB) SetInitialBlock(ctx context.Context, height int64, hash []byte) error {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	return inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) {
		return nil, tx.Exec(ctx, "UPDATE chain_identity SET initial_height = ?, initial_hash = ? WHERE id = 1", height, nonNil(hash))
	})
}

func readIdentity(ctx context.Context, c sqldb.Conn) (ChainIdentity, error) {
	var id ChainIdentity
	var ih sql.NullInt64
	err := queryRow(ctx, c, "SELECT chain_id, first_height, first_hash, initial_height, initial_hash FROM chain_identity WHERE id = 1", nil,
		&id.ChainID, &id.FirstHeight, &id.FirstHash, &ih, &id.InitialHash)
	id.InitialHeight = ih.Int64
	if !ih.Valid {
		id.InitialHash = nil
	}
	return id, err
}

// checkChain is the write transaction's continuity check of the pending bundles against the
// stored chain (st, read under the indexed_height lock), and records the identity with the
// first block. A bundle without a parent hash (a source that has none) is not checked.
func checkChain(ctx context.Context, tx sqldb.Tx, st state, bundles []BlockBundle) error {
	first := bundles[0].Block
	id, err := readIdentity(ctx, tx)
	switch {
	case errors.Is(err, ErrNotFound):
		// An empty store, or one whose first block was pruned before the migration: the first
		// block of this write or the oldest retained one stands for the chain.
		id = ChainIdentity{ChainID: first.ChainID, FirstHeight: first.Height, FirstHash: nonNil(first.Hash)}
		if st.height > 0 {
			if err := queryRow(ctx, tx, "SELECT chain_id, height, hash FROM block WHERE height = ?", []any{st.firstHeight},
				&id.ChainID, &id.FirstHeight, &id.FirstHash); err != nil {
				return fmt.Errorf("read first block: %w", err)
			}
		}
		if err := tx.Exec(ctx, "INSERT INTO chain_identity (id, chain_id, first_height, first_hash) VALUES (1, ?, ?, ?)",
			id.ChainID, id.FirstHeight, id.FirstHash); err != nil {
			return fmt.Errorf("record chain identity: %w", err)
		}
	case err != nil:
		return fmt.Errorf("read chain identity: %w", err)
	}
	for _, b := range bundles {
		if b.Block.ChainID != id.ChainID {
			return &ChainMismatchError{Height: b.Block.Height, NodeHeight: b.Block.Height, StoredChainID: id.ChainID, GotChainID: b.Block.ChainID}
		}
	}
	if st.height > 0 && first.LastHash != nil {
		var stored []byte
		if err := queryRow(ctx, tx, "SELECT hash FROM block WHERE height = ?", []any{st.height}, &stored); err != nil {
			return fmt.Errorf("read block %d: %w", st.height, err)
		}
		if !bytes.Equal(stored, first.LastHash) {
			return &ChainMismatchError{Height: st.height, Stored: stored, Got: first.LastHash, NodeHeight: first.Height,
				StoredChainID: id.ChainID, GotChainID: first.ChainID}
		}
	}
	for k := 1; k < len(bundles); k++ {
		b, prev := bundles[k].Block, bundles[k-1].Block
		if b.LastHash != nil && !bytes.Equal(b.LastHash, prev.Hash) {
			return &ChainMismatchError{Height: prev.Height, Stored: prev.Hash, Got: b.LastHash, NodeHeight: b.Height,
				StoredChainID: id.ChainID, GotChainID: b.ChainID}
		}
	}
	return nil
}

// singleRowDefaults are the one-row tables and the row a fresh migration leaves in each.
var singleRowDefaults = map[string]string{
	"indexed_height":  "UPDATE indexed_height SET height = 0, first_height = 0, last_sequence = 0 WHERE id = 1",
	"evm_state":       "UPDATE evm_state SET last_sequence = 0, internal_height = 0, internal_last_sequence = 0 WHERE id = 1",
	"rich_list_state": "UPDATE rich_list_state SET height = 0 WHERE id = 1",
}

// Reset drops everything the store holds of its chain (blocks, txs, the extensions' rows and
// the tables they own, the chain identity), in one transaction, leaving it as a fresh
// migration does but for chain_state, whose epoch it raises by one (and whose fault it
// clears): the re-index of a chain that was reset (ingest's --on-chain-mismatch reindex),
// after which ingestion starts over as on an empty store. The readers' caches start over with
// it; those of other processes on the same store when they next read the epoch (ChainState).
func (d *DB) Reset(ctx context.Context) error {
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	d.internalMu.Lock()
	defer d.internalMu.Unlock()
	return inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) {
		seen := map[string]bool{"schema_version": true}
		for _, t := range dumpTables {
			if seen[t.name] {
				continue
			}
			seen[t.name] = true
			q := "DELETE FROM " + t.name
			if u, ok := singleRowDefaults[t.name]; ok {
				q = u
			}
			if err := tx.Exec(ctx, q); err != nil {
				return nil, fmt.Errorf("reset %s: %w", t.name, err)
			}
		}
		if err := clearExtensionTables(ctx, tx, 0); err != nil {
			return nil, fmt.Errorf("reset: %w", err)
		}
		if err := tx.Exec(ctx, "UPDATE chain_state SET epoch = epoch + 1, fault = '', message = '', stored_height = NULL, stored_hash = NULL, "+
			"node_height = NULL, node_hash = NULL, changed_ns = ? WHERE id = 1", time.Now().UnixNano()); err != nil {
			return nil, fmt.Errorf("reset chain_state: %w", err)
		}
		var epoch int64
		if err := queryRow(ctx, tx, "SELECT epoch FROM chain_state WHERE id = 1", nil, &epoch); err != nil {
			return nil, fmt.Errorf("reset chain_state: %w", err)
		}
		if err := notifyIndexed(ctx, d.be, tx, 0); err != nil {
			return nil, err
		}
		return func() {
			d.forgetChain()
			d.epoch.Store(epoch)
			d.extRows = 0
			d.written.notify()
		}, nil
	})
}

// forgetChain drops what the readers cached of the stored chain (Reset, or another process's).
func (d *DB) forgetChain() {
	d.state.reset()
	d.lookups.mu.Lock()
	d.lookups.acc = nil
	d.lookups.mu.Unlock()
	d.ranks.mu.Lock()
	d.ranks.m = nil
	d.ranks.mu.Unlock()
}

// The faults ChainState.Fault names, as ingestion's readiness reasons.
const (
	FaultChainMismatch = "CHAIN_MISMATCH" // the writer halted: its node serves another chain
	FaultChainReset    = "CHAIN_RESET"    // the writer is dropping the store to index its node's chain
)

// ChainState is what the writer last found of the chain its node serves and how many times
// the store was re-indexed (table chain_state): what an API replica, which reads the store
// only, knows of the chain beyond the data.
type ChainState struct {
	// Epoch counts the re-indexes (Reset) of the store: ids a stream gave out under an older
	// epoch name items of a chain the store no longer holds.
	Epoch int64
	// Fault is "" while the writer's node serves the stored chain, else FaultChainMismatch or
	// FaultChainReset, with the writer's readiness message.
	Fault, Message string
	// The heights and hashes the two chains disagree on (Fault set), as ChainMismatchError's.
	StoredHeight, NodeHeight int64
	StoredHash, NodeHash     []byte
	Changed                  time.Time // when Fault or Epoch last changed
}

// ChainState reads the store's chain state: one small read, never cached (callers poll it on
// a period). A reader that finds the epoch moved since its last read (a writer elsewhere
// re-indexed) forgets what it cached of the dropped chain.
func (d *DB) ChainState(ctx context.Context) (ChainState, error) {
	return readRetrying(ctx, d, func() (ChainState, error) {
		var cs ChainState
		var sh, nh sql.NullInt64
		var ns int64
		if err := queryRow(ctx, d.be.Reader(), "SELECT epoch, fault, message, stored_height, stored_hash, node_height, node_hash, changed_ns "+
			"FROM chain_state WHERE id = 1", nil, &cs.Epoch, &cs.Fault, &cs.Message, &sh, &cs.StoredHash, &nh, &cs.NodeHash, &ns); err != nil {
			return ChainState{}, fmt.Errorf("read chain state: %w", err)
		}
		cs.StoredHeight, cs.NodeHeight = sh.Int64, nh.Int64
		if ns != 0 {
			cs.Changed = time.Unix(0, ns)
		}
		if prev := d.epoch.Swap(cs.Epoch); prev >= 0 && prev != cs.Epoch {
			d.forgetChain()
		}
		return cs, nil
	})
}

// SetChainFault records the writer's verdict on its node's chain: fault "" (the node serves
// the stored chain) or FaultChainMismatch / FaultChainReset with its message and, from mm
// when set, both heights and hashes. The epoch is Reset's alone.
func (d *DB) SetChainFault(ctx context.Context, fault, message string, mm *ChainMismatchError) error {
	var sh, nh any
	var shash, nhash []byte
	if mm != nil {
		sh, nh, shash, nhash = mm.Height, mm.NodeHeight, mm.Stored, mm.Got
	}
	return inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) {
		return nil, tx.Exec(ctx, "UPDATE chain_state SET fault = ?, message = ?, stored_height = ?, stored_hash = ?, node_height = ?, node_hash = ?, "+
			"changed_ns = CASE WHEN fault = ? THEN changed_ns ELSE ? END WHERE id = 1",
			fault, message, sh, shash, nh, nhash, fault, time.Now().UnixNano())
	})
}
