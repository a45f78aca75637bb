package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// rows is what both drivers' result sets have in common.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// conn runs queries written with '?' placeholders; the PostgreSQL side rewrites them.
type conn interface {
	query(ctx context.Context, q string, args ...any) (rows, error)
}

// wtx is one write transaction of a backend.
type wtx interface {
	conn
	exec(ctx context.Context, q string, args ...any) error
	// insertRows bulk-inserts: COPY on PostgreSQL, a prepared INSERT on SQLite.
	insertRows(ctx context.Context, table string, cols []string, rows [][]any) error
	commit(ctx context.Context) error
	rollback(ctx context.Context) error
}

// backend is what differs between SQLite and PostgreSQL.
type backend interface {
	reader() conn
	begin(ctx context.Context) (wtx, error)
	// forUpdate is appended to the state read that starts every write transaction.
	forUpdate() string
	close() error
}

// DB implements Store over a backend. Writes are serialised in-process (and by the database:
// SQLite's single writer connection with BEGIN IMMEDIATE, PostgreSQL's row lock on
// indexed_height), reads run on a pool.
type DB struct {
	be  backend
	log *slog.Logger

	writeMu sync.Mutex

	// stats refreshes planner statistics after bulk writes (PostgreSQL only; nil on SQLite).
	stats *statsKeeper
	// state caches indexed_height for the readers (see stateTTL).
	state stateCache
	// lookups caches the dictionary and height lookups of filtered lists (see lookupCache).
	lookups lookupCache
}

var _ Store = (*DB)(nil)

func newDB(be backend, log *slog.Logger) *DB {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &DB{be: be, log: log}
	if a, ok := be.(analyzer); ok {
		d.stats = newStatsKeeper(a, log)
	}
	return d
}

// Close waits for a running statistics refresh (cancelling it) and releases the connections.
func (d *DB) Close() error {
	if d.stats != nil {
		d.stats.stop()
	}
	return d.be.close()
}

func queryRow(ctx context.Context, c conn, q string, args []any, dest ...any) error {
	r, err := c.query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer r.Close()
	if !r.Next() {
		if err := r.Err(); err != nil {
			return err
		}
		return ErrNotFound
	}
	if err := r.Scan(dest...); err != nil {
		return err
	}
	return r.Err()
}

type state struct {
	height, firstHeight, lastSequence int64
}

func readState(ctx context.Context, c conn, suffix string) (state, error) {
	var s state
	err := queryRow(ctx, c, "SELECT height, first_height, last_sequence FROM indexed_height WHERE id = 1"+suffix, nil,
		&s.height, &s.firstHeight, &s.lastSequence)
	if err != nil {
		return s, fmt.Errorf("read indexed_height: %w", err)
	}
	return s, nil
}

// IndexedHeight returns the last height written, or 0 for an empty store.
func (d *DB) IndexedHeight(ctx context.Context) (int64, error) {
	s, err := d.readerState(ctx, d.be.reader())
	return s.height, err
}

// WriteBlocks implements Writer. Bundles at or below the indexed height are skipped, so
// replaying a batch after a crash is a no-op for the part that was committed.
func (d *DB) WriteBlocks(ctx context.Context, bundles []BlockBundle) (err error) {
	if len(bundles) == 0 {
		return nil
	}
	d.writeMu.Lock()
	defer d.writeMu.Unlock()

	tx, err := d.be.begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			if rerr := tx.rollback(context.WithoutCancel(ctx)); rerr != nil && err == nil {
				err = fmt.Errorf("rollback: %w", rerr)
			}
		}
	}()
	st, err := readState(ctx, tx, d.be.forUpdate())
	if err != nil {
		return err
	}
	i := 0
	for i < len(bundles) && st.height > 0 && bundles[i].Block.Height <= st.height {
		i++
	}
	bundles = bundles[i:]
	if len(bundles) == 0 {
		return nil
	}
	for k, b := range bundles {
		h := b.Block.Height
		switch {
		case h < 1:
			return fmt.Errorf("%w: height %d", ErrHeightGap, h)
		case k == 0 && st.height > 0 && h != st.height+1:
			return fmt.Errorf("%w: indexed height is %d, got %d", ErrHeightGap, st.height, h)
		case k > 0 && h != bundles[k-1].Block.Height+1:
			return fmt.Errorf("%w: %d follows %d", ErrHeightGap, h, bundles[k-1].Block.Height)
		}
	}
	if st.height == 0 {
		st.firstHeight = bundles[0].Block.Height
	}

	// Dictionaries first, in first-seen order so ids are deterministic.
	var accKeys [][]byte
	var msgKeys []string
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
	// The dictionaries are read inside the transaction, after the indexed_height lock, so the
	// per-key counters that the ranks continue from are current even with a second writer.
	accs := map[string]*dictEntry{}
	if err := resolveDict(ctx, tx, accountDict, accKeys, func(k []byte) string { return string(k) }, accs); err != nil {
		return err
	}
	msgs := map[string]*dictEntry{}
	if err := resolveDict(ctx, tx, msgTypeDict, msgKeys, func(k string) string { return k }, msgs); err != nil {
		return err
	}

	var blockRows, txRows, accRows, msgRows [][]any
	seq := st.lastSequence
	for _, b := range bundles {
		blk := b.Block
		first := seq + 1
		for idx, t := range b.Txs {
			if t.Height != 0 && t.Height != blk.Height {
				return fmt.Errorf("tx %X: height %d inside block %d", t.Hash, t.Height, blk.Height)
			}
			seq++
			var signerID any
			if t.Signer != nil {
				signerID = accs[string(t.Signer)].id
			}
			txRows = append(txRows, []any{seq, t.Hash, blk.Height, idx, signerID, string(t.JSON)})
			edges := map[string]bool{}
			var order []string
			add := func(addr []byte, signer bool) {
				k := string(addr)
				if _, ok := edges[k]; !ok {
					order = append(order, k)
				}
				edges[k] = edges[k] || signer
			}
			if t.Signer != nil {
				add(t.Signer, true)
			}
			for _, a := range t.Accounts {
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
				accRows = append(accRows, []any{e.id, seq, edges[k], e.txCount, signerOrd})
			}
			seenT := map[string]bool{}
			for _, m := range t.MsgTypes {
				m = strings.TrimPrefix(m, "/")
				if !seenT[m] {
					seenT[m] = true
					e := msgs[m]
					e.txCount++
					e.touched = true
					msgRows = append(msgRows, []any{e.id, seq, e.txCount})
				}
			}
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
		blockRows = append(blockRows, []any{blk.Height, blk.ChainID, nonNil(blk.Hash), blk.Time.UnixNano(), blk.BlockTimeMs,
			proposer, blk.GasUsed, blk.GasWanted, blk.TxCount, fee, first, seq})
	}
	if err := tx.insertRows(ctx, "block", []string{"height", "chain_id", "hash", "time_ns", "block_time_ms", "proposer",
		"gas_used", "gas_wanted", "tx_count", "total_fee", "first_sequence", "last_sequence"}, blockRows); err != nil {
		return fmt.Errorf("insert blocks: %w", err)
	}
	if err := tx.insertRows(ctx, "tx", []string{"sequence", "hash", "height", "tx_index", "signer_id", "data"}, txRows); err != nil {
		return fmt.Errorf("insert txs: %w", err)
	}
	if err := tx.insertRows(ctx, "tx_accounts", []string{"account_id", "sequence", "signer", "ord", "signer_ord"}, accRows); err != nil {
		return fmt.Errorf("insert tx_accounts: %w", err)
	}
	if err := tx.insertRows(ctx, "tx_msg_types", []string{"msg_type_id", "sequence", "ord"}, msgRows); err != nil {
		return fmt.Errorf("insert tx_msg_types: %w", err)
	}
	if err := updateCounts(ctx, tx, accountDict, accs); err != nil {
		return err
	}
	if err := updateCounts(ctx, tx, msgTypeDict, msgs); err != nil {
		return err
	}
	last := bundles[len(bundles)-1].Block.Height
	if err := tx.exec(ctx, "UPDATE indexed_height SET height = ?, first_height = ?, last_sequence = ? WHERE id = 1",
		last, st.firstHeight, seq); err != nil {
		return fmt.Errorf("update indexed_height: %w", err)
	}
	if err := tx.commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	committed = true
	d.state.put(state{height: last, firstHeight: st.firstHeight, lastSequence: seq}, time.Now())
	if d.stats != nil {
		blocks := int64(len(bundles))
		d.stats.wrote(blocks+seq-st.lastSequence, last-st.firstHeight+1+seq)
	}
	return nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

const dictChunk = 200

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// dict describes a dictionary table: its key column and its counters.
type dict struct {
	table, key string
	counts     string // the two counter columns as selected (msg types have no signer count)
	update     string // SET clause of updateCounts, over VALUES (id, tx_count, signer_count)
}

var (
	accountDict = dict{"account_dict", "account", "tx_count, signer_count", "tx_count = v.column2, signer_count = v.column3"}
	msgTypeDict = dict{"msg_type_dict", "msg_type", "tx_count, 0", "tx_count = v.column2"}
)

// dictEntry is a dictionary row as the writer sees it during one transaction: the counters
// are the ranks (ord, signer_ord) the next edges continue from.
type dictEntry struct {
	id, txCount, signerCount int64
	touched                  bool
}

// resolveDict fills out with an entry per key, inserting the absent keys in the given order
// with the next free ids, so equal input gives equal ids on both backends, crash or not.
func resolveDict[K string | []byte](ctx context.Context, tx wtx, d dict, keys []K, str func(K) string, out map[string]*dictEntry) error {
	var next int64
	for start := 0; start < len(keys); start += dictChunk {
		chunk := keys[start:min(start+dictChunk, len(keys))]
		args := make([]any, len(chunk))
		for i, k := range chunk {
			args[i] = k
		}
		q := fmt.Sprintf("SELECT id, %s, %s FROM %s WHERE %s IN (%s)", d.key, d.counts, d.table, d.key, placeholders(len(chunk)))
		if err := scanDict(ctx, tx, q, args, str, out); err != nil {
			return fmt.Errorf("look up %s: %w", d.table, err)
		}
		var absent []any
		for _, k := range chunk {
			if _, ok := out[str(k)]; !ok {
				absent = append(absent, k)
			}
		}
		if len(absent) == 0 {
			continue
		}
		// Ids are assigned here, gapless, rather than by an identity sequence: PostgreSQL
		// sequences are not transactional, so a rolled-back batch would leave gaps and a
		// replay after a crash would number the same accounts differently.
		if next == 0 {
			if err := queryRow(ctx, tx, "SELECT COALESCE(MAX(id), 0) FROM "+d.table, nil, &next); err != nil {
				return fmt.Errorf("next %s id: %w", d.table, err)
			}
		}
		vals := make([]any, 0, 2*len(absent))
		for _, k := range absent {
			next++
			vals = append(vals, next, k)
		}
		q = fmt.Sprintf("INSERT INTO %s (id, %s) VALUES %s RETURNING id, %s, %s", d.table, d.key,
			strings.TrimSuffix(strings.Repeat("(?, ?),", len(absent)), ","), d.key, d.counts)
		if err := scanDict(ctx, tx, q, vals, str, out); err != nil {
			return fmt.Errorf("insert %s: %w", d.table, err)
		}
	}
	return nil
}

func scanDict[K string | []byte](ctx context.Context, c conn, q string, args []any, str func(K) string, out map[string]*dictEntry) error {
	r, err := c.query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer r.Close()
	for r.Next() {
		var e dictEntry
		var k K
		if err := r.Scan(&e.id, &k, &e.txCount, &e.signerCount); err != nil {
			return err
		}
		out[str(k)] = &e
	}
	return r.Err()
}

// updateCounts stores the counters of the touched entries, a chunk of rows per statement
// (UPDATE … FROM VALUES works in SQLite ≥ 3.33 and PostgreSQL alike; the casts give
// PostgreSQL the parameter types).
func updateCounts(ctx context.Context, tx wtx, d dict, entries map[string]*dictEntry) error {
	var touched []*dictEntry
	for _, e := range entries {
		if e.touched {
			touched = append(touched, e)
		}
	}
	slices.SortFunc(touched, func(a, b *dictEntry) int { return cmp.Compare(a.id, b.id) })
	for start := 0; start < len(touched); start += dictChunk {
		chunk := touched[start:min(start+dictChunk, len(touched))]
		args := make([]any, 0, 3*len(chunk))
		for _, e := range chunk {
			args = append(args, e.id, e.txCount, e.signerCount)
		}
		q := "UPDATE " + d.table + " SET " + d.update + " FROM (VALUES " +
			strings.TrimSuffix(strings.Repeat("(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT)),", len(chunk)), ",") +
			") AS v WHERE " + d.table + ".id = v.column1"
		if err := tx.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("update %s counts: %w", d.table, err)
		}
	}
	return nil
}

const blockCols = "height, chain_id, hash, time_ns, block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee"

func scanBlocks(r rows) ([]Block, error) {
	defer r.Close()
	out := []Block{}
	for r.Next() {
		var b Block
		var tns int64
		var proposer sql.NullString
		var fee string
		if err := r.Scan(&b.Height, &b.ChainID, &b.Hash, &tns, &b.BlockTimeMs, &proposer, &b.GasUsed, &b.GasWanted, &b.TxCount, &fee); err != nil {
			return nil, err
		}
		b.Time = time.Unix(0, tns).UTC()
		if proposer.Valid {
			var p Proposer
			if err := json.Unmarshal([]byte(proposer.String), &p); err != nil {
				return nil, fmt.Errorf("block %d proposer: %w", b.Height, err)
			}
			b.Proposer = &p
		}
		b.TotalFee = json.RawMessage(fee)
		out = append(out, b)
	}
	return out, r.Err()
}

// Block implements Reader.
func (d *DB) Block(ctx context.Context, height int64) (Block, error) {
	r, err := d.be.reader().query(ctx, "SELECT "+blockCols+" FROM block WHERE height = ?", height)
	if err != nil {
		return Block{}, fmt.Errorf("block %d: %w", height, err)
	}
	bs, err := scanBlocks(r)
	if err != nil {
		return Block{}, fmt.Errorf("block %d: %w", height, err)
	}
	if len(bs) == 0 {
		return Block{}, ErrNotFound
	}
	return bs[0], nil
}

func limitOf(p Page) int {
	if p.Limit <= 0 {
		return 100
	}
	return p.Limit
}

func dir(desc bool) string {
	if desc {
		return "DESC"
	}
	return "ASC"
}

// Blocks implements Reader. Heights are dense from first_height to height, so an offset is a
// height and the total is a subtraction.
func (d *DB) Blocks(ctx context.Context, p Page) (BlockPage, error) {
	c := d.be.reader()
	st, err := d.readerState(ctx, c)
	if err != nil {
		return BlockPage{}, err
	}
	var cond string
	var bound int64
	switch p.After.Kind {
	case CursorHeight:
		bound = p.After.Value
		cond = map[bool]string{true: "height < ?", false: "height > ?"}[p.Desc]
	case CursorSequence:
		// The block holding that tx: the page continues past it.
		var h int64
		err := queryRow(ctx, c, "SELECT height FROM tx WHERE sequence <= ? ORDER BY sequence DESC LIMIT 1", []any{p.After.Value}, &h)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return BlockPage{}, fmt.Errorf("resolve sequence cursor: %w", err)
		}
		bound = h
		cond = map[bool]string{true: "height < ?", false: "height > ?"}[p.Desc]
	default:
		if p.Offset > st.height-st.firstHeight {
			bound, cond = 0, "height < ?"
		} else if p.Desc {
			bound, cond = st.height-p.Offset, "height <= ?"
		} else {
			bound, cond = st.firstHeight+p.Offset, "height >= ?"
		}
	}
	r, err := c.query(ctx, "SELECT "+blockCols+" FROM block WHERE "+cond+" ORDER BY height "+dir(p.Desc)+" LIMIT ?", bound, limitOf(p))
	if err != nil {
		return BlockPage{}, fmt.Errorf("blocks: %w", err)
	}
	bs, err := scanBlocks(r)
	if err != nil {
		return BlockPage{}, fmt.Errorf("blocks: %w", err)
	}
	out := BlockPage{Blocks: bs}
	if p.CountTotal && st.height > 0 {
		out.Total = st.height - st.firstHeight + 1
	}
	return out, nil
}

// AvgBlockTime implements Reader.
func (d *DB) AvgBlockTime(ctx context.Context, n int) (float64, error) {
	c := d.be.reader()
	st, err := d.readerState(ctx, c)
	if err != nil {
		return 0, err
	}
	lo := max(st.firstHeight, st.height-int64(n)+1)
	if st.height-lo < 1 {
		return 0, nil
	}
	var tLo, tHi int64
	if err := queryRow(ctx, c, "SELECT time_ns FROM block WHERE height = ?", []any{lo}, &tLo); err != nil {
		return 0, fmt.Errorf("avg block time: %w", err)
	}
	if err := queryRow(ctx, c, "SELECT time_ns FROM block WHERE height = ?", []any{st.height}, &tHi); err != nil {
		return 0, fmt.Errorf("avg block time: %w", err)
	}
	// The peer reads the times back from PostgreSQL, which keeps microseconds (truncated on
	// the way in), so the average is taken over whole microseconds.
	return float64(tHi/1000-tLo/1000) / 1e6 / float64(st.height-lo), nil
}

// Tx implements Reader. The rows of the hash are read whole and the first is picked here:
// with "ORDER BY sequence LIMIT 1" PostgreSQL may walk the primary key looking for the hash
// instead of using the hash index.
func (d *DB) Tx(ctx context.Context, hash []byte) (TxRecord, error) {
	r, err := d.be.reader().query(ctx, "SELECT sequence, height, data FROM tx WHERE hash = ?", nonNil(hash))
	if err != nil {
		return TxRecord{}, fmt.Errorf("tx by hash: %w", err)
	}
	txs, err := scanTxs(r)
	if err != nil {
		return TxRecord{}, fmt.Errorf("tx by hash: %w", err)
	}
	if len(txs) == 0 {
		return TxRecord{}, ErrNotFound
	}
	first := txs[0]
	for _, t := range txs[1:] {
		if t.Sequence < first.Sequence {
			first = t
		}
	}
	return first, nil
}

func lookupAccount(ctx context.Context, c conn, addr []byte) (*dictEntry, error) {
	var e dictEntry
	err := queryRow(ctx, c, "SELECT id, tx_count, signer_count FROM account_dict WHERE account = ?", []any{nonNil(addr)},
		&e.id, &e.txCount, &e.signerCount)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("account id: %w", err)
	}
	return &e, nil
}

// lookupMsgTypes returns the entries of the known types among types, in id order.
func lookupMsgTypes(ctx context.Context, c conn, types []string) ([]dictEntry, error) {
	var keys []any
	seen := map[string]bool{}
	for _, m := range types {
		if seen[m] || !utf8.ValidString(m) || strings.IndexByte(m, 0) >= 0 {
			// Invalid UTF-8 or NUL cannot be a stored type URL, and PostgreSQL would reject
			// it as a text parameter.
			continue
		}
		seen[m] = true
		keys = append(keys, m)
	}
	var out []dictEntry
	for start := 0; start < len(keys); start += dictChunk {
		chunk := keys[start:min(start+dictChunk, len(keys))]
		r, err := c.query(ctx, "SELECT id, tx_count FROM msg_type_dict WHERE msg_type IN ("+placeholders(len(chunk))+")", chunk...)
		if err != nil {
			return nil, fmt.Errorf("msg type ids: %w", err)
		}
		for r.Next() {
			var e dictEntry
			if err := r.Scan(&e.id, &e.txCount); err != nil {
				r.Close()
				return nil, err
			}
			out = append(out, e)
		}
		err = r.Err()
		r.Close()
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b dictEntry) int { return cmp.Compare(a.id, b.id) })
	return out, nil
}

// Txs implements Reader.
//
// Plan, cheapest first:
//   - no account and no msgs: sequences are dense (1..last, or a block's first..last), so a
//     cursor or an offset is a primary-key range on tx;
//   - one account (optionally is_signer) or one msgs type, no height: the edge rows carry a
//     dense per-key rank (ord, signer_ord), so an offset is a rank range on a unique index and
//     the total is the dictionary's counter;
//   - anything else: a cursor is a seek on the edge table's (key, sequence) primary key; an
//     offset is skipped on that index alone (no tx row is read for skipped entries; cost grows
//     with the offset), and the total is a COUNT over the same index.
//
// Only the page's rows are joined to tx.
func (d *DB) Txs(ctx context.Context, f TxFilter, p Page) (TxPage, error) {
	c := d.be.reader()
	st, err := d.readerState(ctx, c)
	if err != nil {
		return TxPage{}, err
	}
	empty := TxPage{Txs: []TxRecord{}}
	lo, hi := int64(1), st.lastSequence
	if f.Height != 0 {
		lo, hi, err = d.cachedHeightRange(ctx, c, st, f.Height)
		if errors.Is(err, ErrNotFound) {
			return empty, nil
		}
		if err != nil {
			return TxPage{}, err
		}
	}
	if hi < lo {
		return empty, nil
	}
	var acc *dictEntry
	if f.Account != nil {
		if acc, err = d.cachedAccount(ctx, c, st, f.Account); err != nil {
			return TxPage{}, err
		}
		if acc == nil {
			return empty, nil
		}
	}
	var msgs []dictEntry
	var msgIDs []int64
	if f.MsgTypes != nil {
		if msgs, err = d.cachedMsgTypes(ctx, c, st, f.MsgTypes); err != nil {
			return TxPage{}, err
		}
		if len(msgs) == 0 {
			return empty, nil
		}
		for _, m := range msgs {
			msgIDs = append(msgIDs, m.id)
		}
	}

	// The cursor as an exclusive sequence bound in page order.
	hasCursor := p.After.Kind != CursorNone
	var after int64
	switch p.After.Kind {
	case CursorSequence:
		after = p.After.Value
	case CursorHeight:
		if p.Desc {
			err := queryRow(ctx, c, "SELECT first_sequence FROM block WHERE height >= ? ORDER BY height LIMIT 1", []any{p.After.Value}, &after)
			if errors.Is(err, ErrNotFound) {
				after, err = st.lastSequence+1, nil
			}
			if err != nil {
				return TxPage{}, fmt.Errorf("resolve height cursor: %w", err)
			}
		} else {
			err := queryRow(ctx, c, "SELECT last_sequence FROM block WHERE height <= ? ORDER BY height DESC LIMIT 1", []any{p.After.Value}, &after)
			if errors.Is(err, ErrNotFound) {
				after, err = 0, nil
			}
			if err != nil {
				return TxPage{}, fmt.Errorf("resolve height cursor: %w", err)
			}
		}
	}
	// Narrow [lo, hi] by the cursor (keeping the un-narrowed range for the total); for the
	// dense case also by the offset.
	fullLo, fullHi := lo, hi
	if hasCursor {
		// Compared before adding or subtracting, so extreme cursor values cannot overflow.
		switch {
		case p.Desc && after <= lo:
			hi = lo - 1
		case p.Desc:
			hi = min(hi, after-1)
		case after >= hi:
			lo = hi + 1
		default:
			lo = max(lo, after+1)
		}
	}
	limit := limitOf(p)
	out := TxPage{Txs: []TxRecord{}}
	if f.Account == nil && msgIDs == nil {
		if p.CountTotal {
			out.Total = fullHi - fullLo + 1
		}
		a, b := lo, hi
		if !hasCursor && p.Offset > hi-lo {
			return out, nil
		}
		if !hasCursor {
			if p.Desc {
				b = hi - p.Offset
			} else {
				a = lo + p.Offset
			}
		}
		if b < a {
			return out, nil
		}
		r, err := c.query(ctx, "SELECT sequence, height, data FROM tx WHERE sequence BETWEEN ? AND ? ORDER BY sequence "+dir(p.Desc)+" LIMIT ?", a, b, limit)
		if err != nil {
			return TxPage{}, fmt.Errorf("txs: %w", err)
		}
		out.Txs, err = scanTxs(r)
		if err != nil {
			return TxPage{}, fmt.Errorf("txs: %w", err)
		}
		return out, nil
	}

	// Filtered: pick sequences from an edge table.
	var where []string
	var args []any
	var from, col string
	distinct := ""
	msgIn := func(alias string) (string, []any) {
		a := make([]any, len(msgIDs))
		for i, id := range msgIDs {
			a[i] = id
		}
		return alias + ".msg_type_id IN (" + placeholders(len(msgIDs)) + ")", a
	}
	if f.Account != nil {
		from, col = "tx_accounts e", "e.sequence"
		where = append(where, "e.account_id = ?")
		args = append(args, acc.id)
		if f.SignerOnly {
			where = append(where, "e.signer")
		}
		if msgIDs != nil {
			in, a := msgIn("m")
			where = append(where, "EXISTS (SELECT 1 FROM tx_msg_types m WHERE m.sequence = e.sequence AND "+in+")")
			args = append(args, a...)
		}
	} else {
		from, col = "tx_msg_types e", "e.sequence"
		in, a := msgIn("e")
		where = append(where, in)
		args = append(args, a...)
		if len(msgIDs) > 1 {
			distinct = "DISTINCT "
		}
	}
	// One account (optionally as signer) or one message type over all heights: the edge rows
	// carry a dense rank, so the total is the dictionary's counter and an offset is a rank.
	var rk *ranked
	if f.Height == 0 {
		switch {
		case acc != nil && msgs == nil && f.SignerOnly:
			rk = &ranked{"tx_accounts", "account_id", "signer_ord", acc.id, acc.signerCount}
		case acc != nil && msgs == nil:
			rk = &ranked{"tx_accounts", "account_id", "ord", acc.id, acc.txCount}
		case acc == nil && len(msgs) == 1:
			rk = &ranked{"tx_msg_types", "msg_type_id", "ord", msgs[0].id, msgs[0].txCount}
		}
	}
	if p.CountTotal && rk != nil {
		out.Total = rk.n
	} else if p.CountTotal {
		// The total ignores the cursor.
		cw, ca := where, args
		if f.Height != 0 {
			cw = append(cw[:len(cw):len(cw)], col+" BETWEEN ? AND ?")
			ca = append(ca[:len(ca):len(ca)], fullLo, fullHi)
		}
		cnt := "COUNT(*)"
		if distinct != "" {
			cnt = "COUNT(DISTINCT " + col + ")"
		}
		if err := queryRow(ctx, c, "SELECT "+cnt+" FROM "+from+" WHERE "+strings.Join(cw, " AND "), ca, &out.Total); err != nil {
			return TxPage{}, fmt.Errorf("count txs: %w", err)
		}
	}
	if hi < lo {
		return out, nil
	}
	if f.Height != 0 || hasCursor {
		where = append(where, col+" BETWEEN ? AND ?")
		args = append(args, lo, hi)
	}
	whereSQL := strings.Join(where, " AND ")
	offset := int64(0)
	if !hasCursor {
		offset = p.Offset
	}
	var sub string
	var subArgs []any
	if rk != nil && !hasCursor {
		if p.Offset >= rk.n {
			return out, nil
		}
		a, b := int64(1), rk.n
		if p.Desc {
			b -= p.Offset
		} else {
			a += p.Offset
		}
		sub = "SELECT e.sequence AS sequence FROM " + rk.table + " e WHERE e." + rk.key + " = ? AND e." + rk.ord +
			" BETWEEN ? AND ? ORDER BY e." + rk.ord + " " + dir(p.Desc) + " LIMIT ? OFFSET ?"
		subArgs = []any{rk.id, a, b}
		offset = 0
	} else if f.Account == nil && len(msgIDs) > 1 {
		// Several types: one ordered, bounded seek per type on (msg_type_id, sequence), merged.
		// An IN list over that index cannot come out in sequence order, so the database would
		// otherwise read every row of every named type and sort them.
		var parts []string
		for i, id := range msgIDs {
			part := "SELECT * FROM (SELECT e.sequence AS sequence FROM tx_msg_types e WHERE e.msg_type_id = ?"
			subArgs = append(subArgs, id)
			if f.Height != 0 || hasCursor {
				part += " AND e.sequence BETWEEN ? AND ?"
				subArgs = append(subArgs, lo, hi)
			}
			part += " ORDER BY e.sequence " + dir(p.Desc) + " LIMIT ?) AS u" + strconv.Itoa(i)
			subArgs = append(subArgs, satAdd(int64(limit), offset))
			parts = append(parts, part)
		}
		sub = "SELECT DISTINCT m.sequence FROM (" + strings.Join(parts, " UNION ALL ") + ") AS m ORDER BY m.sequence " +
			dir(p.Desc) + " LIMIT ? OFFSET ?"
	} else {
		sub = "SELECT " + col + " AS sequence FROM " + from + " WHERE " + whereSQL + " ORDER BY " + col + " " + dir(p.Desc) + " LIMIT ? OFFSET ?"
		subArgs = args
	}
	q := "SELECT t.sequence, t.height, t.data FROM tx t JOIN (" + sub + ") s ON t.sequence = s.sequence ORDER BY t.sequence " + dir(p.Desc)
	r, err := c.query(ctx, q, append(subArgs, limit, offset)...)
	if err != nil {
		return TxPage{}, fmt.Errorf("txs: %w", err)
	}
	out.Txs, err = scanTxs(r)
	if err != nil {
		return TxPage{}, fmt.Errorf("txs: %w", err)
	}
	return out, nil
}

// ranked is an edge table slice whose rows are ranked 1..n in sequence order by column ord.
type ranked struct {
	table, key, ord string
	id, n           int64
}

// satAdd adds non-negative numbers, saturating instead of wrapping negative (a negative
// LIMIT means "no limit" to SQLite and an error to PostgreSQL).
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func scanTxs(r rows) ([]TxRecord, error) {
	defer r.Close()
	out := []TxRecord{}
	for r.Next() {
		var t TxRecord
		// Scanned as bytes: a string would be copied once more into the RawMessage.
		if err := r.Scan(&t.Sequence, &t.Height, (*[]byte)(&t.JSON)); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, r.Err()
}
