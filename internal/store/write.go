package store

// The write path: one WriteBlocks call is one database transaction that locks the
// indexed_height row, resolves the dictionaries, bulk-inserts the rows and moves the row on.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// WriteBlocks implements Writer. Bundles at or below the indexed height are skipped, so
// replaying a batch after a crash is a no-op for the part that was committed.
//
// A batch that fails because the connection was lost leaves the pool reset, so a retry
// (see IsTransient) starts on a fresh connection instead of a dead pooled one.
func (d *DB) WriteBlocks(ctx context.Context, bundles []BlockBundle) error {
	if len(bundles) == 0 {
		return nil
	}
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	return inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) { return d.writeBlocks(ctx, tx, bundles) })
}

// writeBlocks is WriteBlocks' transaction; after, when set, runs once it committed (the
// readers' state cache, Written's waiters, the statistics keeper).
func (d *DB) writeBlocks(ctx context.Context, tx sqldb.Tx, bundles []BlockBundle) (after func(), err error) {
	st, err := readState(ctx, tx, d.be.ForUpdate())
	if err != nil {
		return nil, err
	}
	if bundles, err = pendingBundles(st, bundles); err != nil || len(bundles) == 0 {
		return nil, err
	}
	if err := checkChain(ctx, tx, st, bundles); err != nil {
		return nil, err
	}
	if st.height == 0 {
		st.firstHeight = bundles[0].Block.Height
	}
	// The dictionaries are read inside the transaction, after the indexed_height lock, so the
	// per-key counters that the ranks continue from are current even with a second writer.
	accKeys, msgKeys := dictKeys(bundles)
	accs := map[string]*dictEntry{}
	if err := resolveDict(ctx, tx, accountDict, accKeys, func(k []byte) string { return string(k) }, accs); err != nil {
		return nil, err
	}
	msgs := map[string]*dictEntry{}
	if err := resolveDict(ctx, tx, msgTypeDict, msgKeys, func(k string) string { return k }, msgs); err != nil {
		return nil, err
	}
	rs := rowSet{seq: st.lastSequence, accs: accs, msgs: msgs}
	for _, b := range bundles {
		if err := rs.addBundle(b); err != nil {
			return nil, err
		}
	}
	if err := rs.insert(ctx, tx); err != nil {
		return nil, err
	}
	if err := updateCounts(ctx, tx, accountDict, accs); err != nil {
		return nil, err
	}
	if err := updateCounts(ctx, tx, msgTypeDict, msgs); err != nil {
		return nil, err
	}
	if err := writeExtensions(ctx, tx, d.be.ForUpdate(), bundles, st.lastSequence); err != nil {
		return nil, err
	}
	last := bundles[len(bundles)-1].Block.Height
	if err := tx.Exec(ctx, "UPDATE indexed_height SET height = ?, first_height = ?, last_sequence = ? WHERE id = 1",
		last, st.firstHeight, rs.seq); err != nil {
		return nil, fmt.Errorf("update indexed_height: %w", err)
	}
	if err := notifyIndexed(ctx, d.be, tx, last); err != nil {
		return nil, err
	}
	return func() {
		d.state.put(state{height: last, firstHeight: st.firstHeight, lastSequence: rs.seq}, time.Now())
		d.written.notify()
		if d.stats != nil {
			blocks, ext := int64(len(bundles)), extensionRows(bundles)
			d.extRows += ext
			d.stats.wrote(blocks+rs.seq-st.lastSequence+ext, last-st.firstHeight+1+rs.seq+d.extRows)
		}
	}, nil
}

// extensionRows counts the EVM and extension rows of bundles, for the statistics keeper: a
// chain whose blocks carry few txs but many balance changes grows those tables alone.
func extensionRows(bundles []BlockBundle) int64 {
	var n int
	for _, b := range bundles {
		for _, e := range b.Extensions {
			n += e.Count()
		}
	}
	return int64(n)
}

// pendingBundles drops the bundles the store already holds and checks that the rest continue
// the stored chain one height at a time.
func pendingBundles(st state, bundles []BlockBundle) ([]BlockBundle, error) {
	i := 0
	for i < len(bundles) && st.height > 0 && bundles[i].Block.Height <= st.height {
		i++
	}
	bundles = bundles[i:]
	for k, b := range bundles {
		h := b.Block.Height
		switch {
		case h < 1:
			return nil, fmt.Errorf("%w: height %d", ErrHeightGap, h)
		case k == 0 && st.height > 0 && h != st.height+1:
			return nil, fmt.Errorf("%w: indexed height is %d, got %d", ErrHeightGap, st.height, h)
		case k > 0 && h != bundles[k-1].Block.Height+1:
			return nil, fmt.Errorf("%w: %d follows %d", ErrHeightGap, h, bundles[k-1].Block.Height)
		}
	}
	return bundles, nil
}

// dictKeys lists the accounts and message types of the bundles in first-seen order, so the
// ids resolveDict assigns are deterministic.
func dictKeys(bundles []BlockBundle) (accKeys [][]byte, msgKeys []string) {
	seenAcc := map[string]bool{}
	seenMsg := map[string]bool{}
	for _, b := range bundles {
		for _, t := range b.Txs {
			if t.Signer != nil && !seenAcc[string(t.Signer)] {
				seenAcc[string(t.Signer)] = true
				accKeys = append(accKeys, t.Signer)
			}
			for _, a := range t.Accounts {
				if !seenAcc[string(a.Addr)] {
					seenAcc[string(a.Addr)] = true
					accKeys = append(accKeys, a.Addr)
				}
			}
			for _, m := range t.MsgTypes {
				m = strings.TrimPrefix(m, "/")
				if !seenMsg[m] {
					seenMsg[m] = true
					msgKeys = append(msgKeys, m)
				}
			}
		}
	}
	return accKeys, msgKeys
}

// rowSet collects the rows of one write transaction, numbering txs from seq+1 and ranking
// each edge row by the dictionary counters it advances.
type rowSet struct {
	seq        int64 // the last sequence assigned
	accs, msgs map[string]*dictEntry

	blocks, txs, accounts, msgTypes [][]any
}

func (rs *rowSet) addBundle(b BlockBundle) error {
	blk := b.Block
	first := rs.seq + 1
	for idx, t := range b.Txs {
		if t.Height != 0 && t.Height != blk.Height {
			return fmt.Errorf("tx %X: height %d inside block %d", t.Hash, t.Height, blk.Height)
		}
		rs.addTx(t, idx, blk.Height)
	}
	var proposer any
	if blk.Proposer != nil {
		pj, err := json.Marshal(blk.Proposer)
		if err != nil {
			return fmt.Errorf("proposer of %d: %w", blk.Height, err)
		}
		proposer = string(pj)
	}
	fee := string(blk.TotalFee)
	if len(blk.TotalFee) == 0 {
		fee = "null"
	}
	rs.blocks = append(rs.blocks, []any{blk.Height, blk.ChainID, nonNil(blk.Hash), blk.Time.UnixNano(), blk.BlockTimeMs,
		proposer, blk.GasUsed, blk.GasWanted, blk.TxCount, fee, first, rs.seq})
	return nil
}

func (rs *rowSet) addTx(t Tx, idx int, height int64) {
	rs.seq++
	seq := rs.seq
	var signerID any
	if t.Signer != nil {
		signerID = rs.accs[string(t.Signer)].id
	}
	rs.txs = append(rs.txs, []any{seq, t.Hash, height, idx, signerID, string(t.JSON)})

	rs.accounts = appendAccountEdges(rs.accounts, rs.accs, seq, t.Signer, t.Accounts)
	seen := map[string]bool{}
	for _, m := range t.MsgTypes {
		m = strings.TrimPrefix(m, "/")
		if !seen[m] {
			seen[m] = true
			e := rs.msgs[m]
			e.txCount++
			e.touched = true
			rs.msgTypes = append(rs.msgTypes, []any{e.id, seq, e.txCount})
		}
	}
}

func (rs *rowSet) insert(ctx context.Context, tx sqldb.Tx) error {
	if err := tx.InsertRows(ctx, "block", []string{"height", "chain_id", "hash", "time_ns", "block_time_ms", "proposer",
		"gas_used", "gas_wanted", "tx_count", "total_fee", "first_sequence", "last_sequence"}, rs.blocks); err != nil {
		return fmt.Errorf("insert blocks: %w", err)
	}
	if err := tx.InsertRows(ctx, "tx", []string{"sequence", "hash", "height", "tx_index", "signer_id", "data"}, rs.txs); err != nil {
		return fmt.Errorf("insert txs: %w", err)
	}
	if err := tx.InsertRows(ctx, "tx_accounts", []string{"account_id", "sequence", "signer", "ord", "signer_ord"}, rs.accounts); err != nil {
		return fmt.Errorf("insert tx_accounts: %w", err)
	}
	if err := tx.InsertRows(ctx, "tx_msg_types", []string{"msg_type_id", "sequence", "ord"}, rs.msgTypes); err != nil {
		return fmt.Errorf("insert tx_msg_types: %w", err)
	}
	return nil
}

// appendAccountEdges appends the edge rows of one tx (Cosmos or EVM): one per distinct account,
// a signer if any of its mentions is, numbered by the account's running tx and signer counts.
func appendAccountEdges(rows [][]any, accs map[string]*dictEntry, seq int64, signer []byte, accounts []TxAccount) [][]any {
	edges := map[string]bool{}
	var order []string
	add := func(addr []byte, signer bool) {
		k := string(addr)
		if _, ok := edges[k]; !ok {
			order = append(order, k)
		}
		edges[k] = edges[k] || signer
	}
	if signer != nil {
		add(signer, true)
	}
	for _, a := range accounts {
		add(a.Addr, a.Signer)
	}
	for _, k := range order {
		e := accs[k]
		e.txCount++
		var signerOrd any
		if edges[k] {
			e.signerCount++
			signerOrd = e.signerCount
		}
		e.touched = true
		rows = append(rows, []any{e.id, seq, edges[k], e.txCount, signerOrd})
	}
	return rows
}
