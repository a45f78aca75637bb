package track

// Chain identity and continuity of the scanned chains. A chain is known by its chain id (every
// scanned header must carry it) and by the hash of the last block scanned, kept with its
// cursor: each new block's last_block_id.hash must equal the stored hash of the height below
// (read from the header the scan fetched anyway, no extra request), and when a replica takes
// up a chain (at start, after another replica held it) the node's block at the cursor must
// hash as stored (one /block). A node whose head is below the cursor is behind (restored from
// an older snapshot, or a reset chain not yet past the old height): it is waited for. A node
// that answers otherwise serves another chain — a reset under the same chain id, an RPC URL
// repointed at another network — and that chain's scan halts: nothing more of it is stored,
// so no hop completes from its events; the mismatch is kept on the cursor (every replica and
// every restart sees it), logged once at ERROR, shown on /readyz and in a gauge, and the
// statuses of the transfers waiting on it say why. Recovery is the operator's: Store.Rebase
// (`rollgate router --track-rebase`) forgets the chain's scan and starts it afresh.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/sqldb"
)

// Readiness reasons of a followed chain (ChainReach.Reason).
const (
	// ReasonChainMismatch: the chain's node serves another chain than the one scanned; its
	// scan is halted until the operator re-bases it.
	ReasonChainMismatch = "CHAIN_MISMATCH"
	// ReasonUpstreamBehind: the node's head is below the scanned height; the scan waits.
	ReasonUpstreamBehind = "UPSTREAM_BEHIND"
)

// Scan states of a followed chain (ChainReach.State).
const (
	ChainScanning = "scanning"
	ChainBehind   = "behind"
	ChainHalted   = "halted"
)

// ChainMismatch is what halted a chain's scan: the node's block at Height does not continue
// the stored chain at StoredHeight (Height-1 when read from a new block's last_block_id, Height
// itself when the node's block at the cursor was compared).
type ChainMismatch struct {
	Reason       string    `json:"reason"`
	Height       int64     `json:"height"`
	StoredHeight int64     `json:"stored_height"`
	StoredHash   string    `json:"stored_hash"`
	NodeHash     string    `json:"node_hash"`
	StoredChain  string    `json:"stored_chain_id"`
	NodeChain    string    `json:"node_chain_id"`
	At           time.Time `json:"at"`
}

func (m *ChainMismatch) Error() string {
	if m.NodeChain != m.StoredChain {
		return fmt.Sprintf("the node of %s serves chain %q (block %d)", m.StoredChain, m.NodeChain, m.Height)
	}
	return fmt.Sprintf("the node of %s serves another chain: its block %d names %s as the hash of %d, the scanned chain's is %s",
		m.StoredChain, m.Height, m.NodeHash, m.StoredHeight, m.StoredHash)
}

// chainScan is one chain's scan state in this process. The scanner (the chain's scanLoop,
// or Step) owns size and verified; mu guards what /readyz and the metric read.
type chainScan struct {
	size     sqldb.WriteSize // heights per SaveBlocks under repeated faults
	verified bool            // the node's block at the cursor hashed as stored since this replica took the chain up

	mu      sync.Mutex
	state   string
	halted  *ChainMismatch
	node    int64 // the node's head while behind
	scanned int64 // the cursor then
	logged  bool  // the halt was logged at ERROR by this process
}

func (t *Tracker) chainScan(chainID string) *chainScan {
	t.rpcMu.Lock()
	defer t.rpcMu.Unlock()
	cs := t.scans[chainID]
	if cs == nil {
		cs = &chainScan{state: ChainScanning}
		t.scans[chainID] = cs
	}
	return cs
}

// readable reports whether the chain's node may be read outside the scan (a lookup by hash):
// not while it is halted or behind.
func (cs *chainScan) readable() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.state == ChainScanning
}

// lookupAllowed reports whether a tx registered on chainID may be looked up on its node now:
// not while its scan is halted (here or by another replica, as the store says) or its node
// is behind.
func (t *Tracker) lookupAllowed(ctx context.Context, chainID string) bool {
	if !t.chainScan(chainID).readable() {
		return false
	}
	halts, err := t.st.HaltedChains(ctx)
	return err == nil && halts[chainID] == nil
}

// hashHex is a block hash as the cursor keeps it.
func hashHex(h comet.HexBytes) string {
	b, _ := h.MarshalJSON()
	return strings.Trim(string(b), `"`)
}

// checkAt compares the node's block at the cursor with the stored hash (the start check).
func checkAt(chainID string, cur Cursor, blk *comet.ResultBlock, now time.Time) *ChainMismatch {
	if blk == nil || blk.Block == nil {
		return nil
	}
	got := hashHex(blk.BlockID.Hash)
	if blk.Block.Header.ChainID == chainID && got == cur.Hash {
		return nil
	}
	return &ChainMismatch{Reason: ReasonChainMismatch, Height: cur.Height, StoredHeight: cur.Height, StoredHash: cur.Hash, NodeHash: got,
		StoredChain: chainID, NodeChain: blk.Block.Header.ChainID, At: now.UTC()}
}

// continues returns how many of the fetched bundles continue the stored chain (each header
// names chainID and its parent's hash is the one before), and the mismatch at the first that
// does not. A cursor without a hash (the chain's first scan, or a store from before hashes
// were kept) takes the first block's parent on trust.
func continues(chainID string, cur Cursor, bundles []*comet.BlockBundle, now time.Time) (int, *ChainMismatch) {
	prev, prevHeight := cur.Hash, cur.Height
	for i, b := range bundles {
		h := b.Block.Block.Header
		parent := hashHex(h.LastBlockID.Hash)
		if h.ChainID != chainID || (prev != "" && parent != prev) {
			return i, &ChainMismatch{Reason: ReasonChainMismatch, Height: b.Height, StoredHeight: prevHeight, StoredHash: prev, NodeHash: parent,
				StoredChain: chainID, NodeChain: h.ChainID, At: now.UTC()}
		}
		prev, prevHeight = hashHex(b.Block.BlockID.Hash), b.Height
	}
	return len(bundles), nil
}

// halt records m for chainID (this replica holds its scan lease) and stops its scan.
func (t *Tracker) halt(ctx context.Context, chainID string, cs *chainScan, m *ChainMismatch) error {
	if err := t.st.HaltChain(ctx, chainID, t.cfg.Owner, m); err != nil {
		return err
	}
	t.halted(chainID, cs, m)
	return nil
}

// halted notes that chainID's scan is halted by m (found here or read from the store): one
// ERROR line per process names both hashes and heights.
func (t *Tracker) halted(chainID string, cs *chainScan, m *ChainMismatch) {
	cs.mu.Lock()
	first, changed := !cs.logged, cs.state != ChainHalted
	cs.state, cs.halted, cs.logged = ChainHalted, m, true
	cs.mu.Unlock()
	t.mismatch.WithLabelValues(chainID).Set(1)
	if changed {
		t.rewaken(chainID)
	}
	if first {
		t.log.Error("track scan: the chain's node serves another chain; its scan is halted and no hop completes from it until the operator re-bases it (--track-rebase)",
			"chain_id", chainID, "reason", m.Reason, "height", m.Height, "node_chain_id", m.NodeChain, "node_hash", m.NodeHash,
			"stored_height", m.StoredHeight, "stored_hash", m.StoredHash)
	}
}

// behind notes that chainID's node is below the cursor.
func (t *Tracker) behind(chainID string, cs *chainScan, node, scanned int64) {
	cs.verified = false // checked again once the node is back at the cursor
	cs.mu.Lock()
	was := cs.state
	cs.state, cs.node, cs.scanned = ChainBehind, node, scanned
	cs.mu.Unlock()
	if was != ChainBehind {
		t.log.Warn("track scan: the chain's node is behind the scanned height; waiting for it", "chain_id", chainID, "node_height", node, "scanned_height", scanned)
	}
}

// scanning notes that chainID's node serves the scanned chain.
func (t *Tracker) scanning(chainID string, cs *chainScan) {
	cs.mu.Lock()
	was := cs.state
	cs.state, cs.halted = ChainScanning, nil
	cs.mu.Unlock()
	if was == ChainBehind {
		t.log.Info("track scan: the chain's node caught up with the scanned height", "chain_id", chainID)
	}
	if was == ChainHalted {
		t.mismatch.WithLabelValues(chainID).Set(0)
		t.rewaken(chainID)
	}
}

// rewaken evaluates again the held transfers waiting on chainID's events: their statuses say
// whether the chain is halted.
func (t *Tracker) rewaken(chainID string) {
	t.mu.Lock()
	for k, ts := range t.waitIdx {
		if k.ChainID == chainID {
			for tk := range ts {
				t.dirty[tk] = true
			}
		}
	}
	t.mu.Unlock()
	t.poke()
}

// scanState is chainID's state as /readyz shows it. Halts recorded by another replica come
// from the store (refreshHalted).
func (t *Tracker) scanState(chainID string, r *ChainReach) {
	t.rpcMu.Lock()
	cs, stored := t.scans[chainID], t.storedHalts[chainID]
	t.rpcMu.Unlock()
	r.State = ChainScanning
	if cs != nil {
		cs.mu.Lock()
		r.State = cs.state
		switch cs.state {
		case ChainHalted:
			r.Reason, r.Mismatch = ReasonChainMismatch, cs.halted
		case ChainBehind:
			r.Reason, r.NodeHeight, r.ScannedHeight = ReasonUpstreamBehind, cs.node, cs.scanned
		}
		cs.mu.Unlock()
	}
	if stored != nil && r.State != ChainHalted {
		r.State, r.Reason, r.Mismatch = ChainHalted, ReasonChainMismatch, stored
	}
}

// refreshHalted reads the halted chains from the store, for /readyz on a replica that does
// not scan them.
func (t *Tracker) refreshHalted(ctx context.Context) error {
	m, err := t.st.HaltedChains(ctx)
	if err != nil {
		return err
	}
	t.rpcMu.Lock()
	t.storedHalts = m
	t.rpcMu.Unlock()
	return nil
}

// haltNote is the error a status carries while the transfer waits on a halted chain: Skip's
// STATUS_ERROR_INDEXING ("error encountered while indexing the transaction and packet data"),
// the state staying what the events say (pending): the transfer is not known to have failed,
// only its chain can no longer be read.
func haltNote(chainID string, m *ChainMismatch) *StatusError {
	return &StatusError{Type: StatusErrorIndexing, Message: fmt.Sprintf("%s: tracking of %s is halted (%s): %s; this transfer waits on that chain and will not complete until the operator re-bases it",
		ReasonChainMismatch, chainID, m.Reason, m.Error())}
}

// noteHalts marks a non-terminal status that waits on a halted chain.
func noteHalts(resp *StatusResponse, waits []EventKey, halts map[string]*ChainMismatch) {
	if Terminal(resp.State) || len(halts) == 0 {
		return
	}
	for _, w := range waits {
		m := halts[w.ChainID]
		if m == nil {
			continue
		}
		note := haltNote(w.ChainID, m)
		if resp.Error == nil {
			resp.Error = note
		}
		for i := range resp.Transfers {
			if tr := &resp.Transfers[i]; !Terminal(tr.State) && tr.Error == nil {
				tr.Error = note
			}
		}
		return
	}
}

// HaltChain records that chainID's scan halted on m, while owner holds its scan lease, and
// deletes the chain's events above the cursor: only a lookup by hash (Tracker.lookup) stores
// events there, from blocks no scan has checked, which may be the other chain's.
func (s *Store) HaltChain(ctx context.Context, chainID, owner string, m *ChainMismatch) error {
	doc, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("track halt: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, s.q("UPDATE track_cursor SET halted = ? WHERE chain_id = ? AND owner = ?"), string(doc), chainID, owner)
	if err != nil {
		return fmt.Errorf("track halt: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("track halt: lost the scan lease of %s", chainID)
	}
	if _, err := tx.ExecContext(ctx, s.q("DELETE FROM track_event WHERE chain_id = ? AND height > (SELECT height FROM track_cursor WHERE chain_id = ?)"),
		chainID, chainID); err != nil {
		return fmt.Errorf("track halt: %w", err)
	}
	return tx.Commit()
}

// HaltedChains returns the mismatch of every chain whose scan is halted.
func (s *Store) HaltedChains(ctx context.Context) (map[string]*ChainMismatch, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT chain_id, halted FROM track_cursor WHERE halted <> ''")
	if err != nil {
		return nil, fmt.Errorf("track halted chains: %w", err)
	}
	defer rows.Close()
	out := map[string]*ChainMismatch{}
	for rows.Next() {
		var id, doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, err
		}
		m := &ChainMismatch{}
		if err := json.Unmarshal([]byte(doc), m); err != nil {
			return nil, fmt.Errorf("track halted chain %s: %w", id, err)
		}
		out[id] = m
	}
	return out, rows.Err()
}

// ErrNotScanned: Rebase of a chain the store has no scan of.
var ErrNotScanned = errors.New("track: the chain was never scanned")

// Rebase forgets chainID's scan, the operator's recovery from a halt (a testnet reset, a node
// repointed on purpose): its cursor and every event stored of it go, so its next scan starts
// Backfill blocks below the new chain's tip as on a fresh store. The old chain's events must
// go with it: the new chain's blocks reuse their heights, and an event is unique by
// (chain, height, tx, position). Transfers are kept: one registered on that chain is looked
// for afresh (its tx is not on the new chain, so it ends STATE_ABANDONED once its window is
// over); one waiting on that chain's events waits on the new chain's. It returns the number
// of events deleted.
func (s *Store) Rebase(ctx context.Context, chainID string) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("track rebase: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, s.q("DELETE FROM track_cursor WHERE chain_id = ?"), chainID)
	if err != nil {
		return 0, fmt.Errorf("track rebase: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, fmt.Errorf("%w: %s", ErrNotScanned, chainID)
	}
	res, err = tx.ExecContext(ctx, s.q("DELETE FROM track_event WHERE chain_id = ?"), chainID)
	if err != nil {
		return 0, fmt.Errorf("track rebase: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, tx.Commit()
}
