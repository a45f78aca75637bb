package store

// The transfers index: one row per movement of a token, written by its own writer in the
// block's transaction (BlockBundle.Extensions), read by the transfer lists. Rows are keyed by
// an id in block, tx and event order (TransferID), so every list is a keyset walk of one index.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// Transfer kinds: what moved the token. A movement the chain reports twice (a bank send and
// the ERC-20 log or Move fungible-asset events of the same coins) is one transfer.
const (
	TransferSend       = "send"        // x/bank send (MsgSend, MsgMultiSend, fees, module transfers)
	TransferMint       = "mint"        // x/bank mint (coinbase): no sender
	TransferBurn       = "burn"        // x/bank burn: no recipient
	TransferIBCSend    = "ibc_send"    // the escrow (or burn) leg of an ICS-20 transfer out
	TransferIBCReceive = "ibc_receive" // the credit of an ICS-20 packet received
	TransferDeposit    = "deposit"     // the credit of an OPinit deposit from L1
	TransferWithdrawal = "withdrawal"  // the debit of an OPinit withdrawal to L1
	TransferERC20      = "erc20"       // an ERC-20 Transfer log no bank event reported
	TransferERC721     = "erc721"      // an ERC-721 Transfer log
	TransferCW20       = "cw20"        // a CW20 transfer, send, mint or burn
	TransferCW721      = "cw721"       // a CW721 transfer_nft, send_nft, mint or burn
	TransferMove       = "move"        // a Move fungible-asset movement no bank event reported
	TransferMoveNFT    = "move_nft"    // a Move token object transfer
)

// Transfer is one token movement of a block, as ingestion extracts it.
type Transfer struct {
	TxIndex  int // the position of its tx in the block
	MsgIndex int // the event's msg_index; -1 when the event has none (fees, ante handlers)
	Kind     string
	From, To []byte // raw addresses; nil From for a mint, nil To for a burn
	Denom    string
	Contract []byte // the token's contract or Move metadata object; nil for a bank coin
	Amount   string // base units, decimal
	TokenID  string // NFTs only
	// Counterparty and CounterpartyAddr name the other chain's side of a bridge leg: the IBC
	// channel on the other chain and the remote account; "l1" and the L1 account for OPinit.
	Counterparty     string
	CounterpartyAddr string
}

// TransferRows are a block's transfers, in tx and event order: the bundle's rows of the
// transfers index (BlockBundle.Extensions).
type TransferRows []Transfer

func (TransferRows) WriterName() string         { return "transfers" }
func (TransferRows) NewWriter() ExtensionWriter { return &transferWriter{} }
func (r TransferRows) Count() int               { return len(r) }

var transferCols = []string{"id", "height", "time_ns", "tx_hash", "msg_index", "kind", "from_addr", "to_addr", "denom",
	"contract", "amount", "token_id", "counterparty", "counterparty_addr"}

// TransferIDBits is how many low bits of a transfer's id number it within its block: the id
// is height<<TransferIDBits + its position in the block, so ids follow block, tx and event
// order whichever order heights are written in (a backfill writes old heights after new ones)
// and a block holds at most 1<<TransferIDBits transfers. Ids stay below 2^53 (exact in
// JavaScript clients) up to height 2^33.
const TransferIDBits = 20

// TransferID is the id of the k-th transfer (0-based) of a height.
func TransferID(height int64, k int) int64 { return height<<TransferIDBits + int64(k) }

// transferWriter numbers the batch's transfers by height and bulk-inserts them.
type transferWriter struct {
	rows    [][]any
	height  int64 // the height of the last rows added, and how many it had
	inBlock int
	err     error
}

func (w *transferWriter) Add(b *BlockBundle, rows ExtensionRows, _ int64) {
	if b.Block.Height != w.height || w.rows == nil {
		w.height, w.inBlock = b.Block.Height, 0
	}
	for _, t := range rows.(TransferRows) {
		var hash []byte
		if t.TxIndex >= 0 && t.TxIndex < len(b.Txs) {
			hash = b.Txs[t.TxIndex].Hash
		}
		var msg any
		if t.MsgIndex >= 0 {
			msg = t.MsgIndex
		}
		if w.inBlock >= 1<<TransferIDBits && w.err == nil {
			w.err = fmt.Errorf("transfers: height %d has more than %d transfers", b.Block.Height, 1<<TransferIDBits)
		}
		w.rows = append(w.rows, []any{TransferID(b.Block.Height, w.inBlock), b.Block.Height, b.Block.Time.UnixNano(), nonNil(hash), msg, t.Kind,
			nullBytes(t.From), nullBytes(t.To), t.Denom, nullBytes(t.Contract), t.Amount, nullText(t.TokenID),
			nullText(t.Counterparty), nullText(t.CounterpartyAddr)})
		w.inBlock++
	}
}

func (w *transferWriter) Write(ctx context.Context, tx sqldb.Tx, _ string) error {
	if w.err != nil {
		return w.err
	}
	if len(w.rows) == 0 {
		return nil
	}
	if err := tx.InsertRows(ctx, "transfer", transferCols, w.rows); err != nil {
		return fmt.Errorf("insert transfers: %w", err)
	}
	var c transferCounts
	for _, r := range w.rows {
		from, _ := r[6].([]byte)
		to, _ := r[7].([]byte)
		c.add(from, to, r[8].(string), 1)
	}
	return c.apply(ctx, tx)
}

// transferCounts are changes to the per-account and per-denom counts (transfer_account,
// transfer_denom_count).
type transferCounts struct {
	keys   []string
	d      map[string]*[3]int64 // by raw address: in, out, self
	denoms []string
	n      map[string]int64
}

// add counts one transfer n times (n < 0: rows removed).
func (c *transferCounts) add(from, to []byte, denom string, n int64) {
	if c.d == nil {
		c.d, c.n = map[string]*[3]int64{}, map[string]int64{}
	}
	get := func(a []byte) *[3]int64 {
		v, ok := c.d[string(a)]
		if !ok {
			v = new([3]int64)
			c.d[string(a)] = v
			c.keys = append(c.keys, string(a))
		}
		return v
	}
	if to != nil {
		v := get(to)
		v[0] += n
		if from != nil && bytes.Equal(from, to) {
			v[2] += n
		}
	}
	if from != nil {
		get(from)[1] += n
	}
	if _, ok := c.n[denom]; !ok {
		c.denoms = append(c.denoms, denom)
	}
	c.n[denom] += n
}

// transferCountChunk bounds the rows of one upsert (4 parameters each).
const transferCountChunk = 500

// apply adds the changes in the write transaction; an account or denom whose counts reach
// zero (every row of it pruned) loses its row.
func (c *transferCounts) apply(ctx context.Context, tx sqldb.Tx) error {
	// In key order: two writers (ingestion and a backfill) lock the rows they share in the
	// same order, so neither waits on the other in a cycle.
	slices.Sort(c.keys)
	slices.Sort(c.denoms)
	var gone []any
	args := make([]any, 0, 4*min(len(c.keys), transferCountChunk))
	for start := 0; start < len(c.keys); start += transferCountChunk {
		chunk := c.keys[start:min(start+transferCountChunk, len(c.keys))]
		args = args[:0]
		for _, k := range chunk {
			v := c.d[k]
			args = append(args, []byte(k), v[0], v[1], v[2])
			if v[0] < 0 || v[1] < 0 {
				gone = append(gone, []byte(k))
			}
		}
		q := "INSERT INTO transfer_account (account, n_in, n_out, n_self) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", len(chunk)), ",") +
			" ON CONFLICT (account) DO UPDATE SET n_in = transfer_account.n_in + excluded.n_in," +
			" n_out = transfer_account.n_out + excluded.n_out, n_self = transfer_account.n_self + excluded.n_self"
		if err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("transfer counts: %w", err)
		}
	}
	for _, a := range gone {
		if err := tx.Exec(ctx, "DELETE FROM transfer_account WHERE account = ? AND n_in <= 0 AND n_out <= 0", a); err != nil {
			return fmt.Errorf("transfer counts: %w", err)
		}
	}
	for _, d := range c.denoms {
		if err := tx.Exec(ctx, "INSERT INTO transfer_denom_count (denom, n) VALUES (?, ?) ON CONFLICT (denom) DO UPDATE SET n = transfer_denom_count.n + excluded.n",
			d, c.n[d]); err != nil {
			return fmt.Errorf("transfer denom counts: %w", err)
		}
		if c.n[d] < 0 {
			if err := tx.Exec(ctx, "DELETE FROM transfer_denom_count WHERE denom = ? AND n <= 0", d); err != nil {
				return fmt.Errorf("transfer denom counts: %w", err)
			}
		}
	}
	return nil
}

// transferRecount is the per-account counts computed from the transfer rows (as migration
// 0012 fills transfer_account on a store indexed before it).
const transferRecount = "SELECT account, SUM(n_in) AS n_in, SUM(n_out) AS n_out, SUM(n_self) AS n_self FROM (" +
	"SELECT to_addr AS account, 1 AS n_in, 0 AS n_out, CASE WHEN from_addr = to_addr THEN 1 ELSE 0 END AS n_self FROM transfer WHERE to_addr IS NOT NULL" +
	" UNION ALL SELECT from_addr, 0, 1, 0 FROM transfer WHERE from_addr IS NOT NULL) c GROUP BY account"

// CheckTransferCounts compares the per-account counts the writer keeps with the counts of the
// stored rows: an error names how many accounts differ. It reads every transfer (a check for
// tests and the backfill's end, not for a request).
func (d *DB) CheckTransferCounts(ctx context.Context) error {
	c := d.be.Reader()
	var missing, extra int64
	if err := queryRow(ctx, c, "SELECT COUNT(*) FROM ("+transferRecount+" EXCEPT SELECT account, n_in, n_out, n_self FROM transfer_account) d", nil, &missing); err != nil {
		return fmt.Errorf("check transfer counts: %w", err)
	}
	if err := queryRow(ctx, c, "SELECT COUNT(*) FROM (SELECT account, n_in, n_out, n_self FROM transfer_account EXCEPT "+transferRecount+") d", nil, &extra); err != nil {
		return fmt.Errorf("check transfer counts: %w", err)
	}
	if missing != 0 || extra != 0 {
		return fmt.Errorf("transfer counts: %d accounts' counts differ from their rows, %d counts without those rows", missing, extra)
	}
	const denoms = "SELECT denom, COUNT(*) AS n FROM transfer GROUP BY denom"
	if err := queryRow(ctx, c, "SELECT COUNT(*) FROM ("+denoms+" EXCEPT SELECT denom, n FROM transfer_denom_count) d", nil, &missing); err != nil {
		return fmt.Errorf("check transfer counts: %w", err)
	}
	if err := queryRow(ctx, c, "SELECT COUNT(*) FROM (SELECT denom, n FROM transfer_denom_count EXCEPT "+denoms+") d", nil, &extra); err != nil {
		return fmt.Errorf("check transfer counts: %w", err)
	}
	if missing != 0 || extra != 0 {
		return fmt.Errorf("transfer counts: %d denoms' counts differ from their rows, %d counts without those rows", missing, extra)
	}
	return nil
}

// pruneTransfers removes the transfers below height hi and their share of the per-account
// counts, in the prune's transaction. A prune batch is bounded by heights, so the counts of
// the rows it removes are one grouped read of its rows.
func pruneTransfers(ctx context.Context, tx sqldb.Tx, hi int64) error {
	r, err := tx.Query(ctx, "SELECT from_addr, to_addr, denom, COUNT(*) FROM transfer WHERE height < ? GROUP BY from_addr, to_addr, denom", hi)
	if err != nil {
		return fmt.Errorf("prune transfer counts: %w", err)
	}
	var c transferCounts
	for r.Next() {
		var from, to []byte
		var denom string
		var n int64
		if err := r.Scan(&from, &to, &denom, &n); err != nil {
			r.Close()
			return fmt.Errorf("prune transfer counts: %w", err)
		}
		c.add(from, to, denom, -n)
	}
	r.Close()
	if err := r.Err(); err != nil {
		return fmt.Errorf("prune transfer counts: %w", err)
	}
	if err := c.apply(ctx, tx); err != nil {
		return err
	}
	if err := tx.Exec(ctx, "DELETE FROM transfer WHERE height < ?", hi); err != nil {
		return fmt.Errorf("prune transfer: %w", err)
	}
	return nil
}

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Direction selects an account's transfers by its side.
type Direction int

// The directions; the zero value is both.
const (
	DirectionBoth Direction = iota
	DirectionIn             // the account received
	DirectionOut            // the account sent
)

// TransferFilter narrows a transfer list. The zero value lists every transfer.
type TransferFilter struct {
	Account   []byte // raw address; nil: any
	Direction Direction
	Denom     string // exact denom; "" any
	Contract  []byte // the token contract; nil any
	TxHash    []byte // the transfers of one Cosmos tx; nil any
	// MinHeight and MaxHeight bound the heights, inclusive; 0 leaves that side open.
	MinHeight, MaxHeight int64
}

// TransferRecord is one stored transfer.
type TransferRecord struct {
	ID       int64
	Height   int64
	Time     time.Time
	TxHash   []byte
	MsgIndex int // -1: none
	Transfer
}

// TransferPage is one page of transfers; Total is exact when counted, else 0.
type TransferPage struct {
	Transfers []TransferRecord
	Total     int64
}

// TransferReader is the API side of the transfers index.
type TransferReader interface {
	// Transfers returns a page of transfers ordered by id (block, tx and event order).
	Transfers(ctx context.Context, f TransferFilter, p Page) (TransferPage, error)
}

var _ TransferReader = (*DB)(nil)

// Transfers implements TransferReader. Each list walks one index in id order: the account's
// from or to index (both directions merge the two walks, each cut at the page's end), the
// denom, contract or tx index, or the primary key.
func (d *DB) Transfers(ctx context.Context, f TransferFilter, p Page) (TransferPage, error) {
	c := d.be.Reader()
	limit := p.Limit
	if limit <= 0 {
		limit = 100
	}
	var conds []string
	var args []any
	if f.Denom != "" {
		conds, args = append(conds, "denom = ?"), append(args, f.Denom)
	}
	if f.Contract != nil {
		conds, args = append(conds, "contract = ?"), append(args, f.Contract)
	}
	if f.TxHash != nil {
		conds, args = append(conds, "tx_hash = ?"), append(args, f.TxHash)
	}
	if f.MinHeight > 0 {
		conds, args = append(conds, "height >= ?"), append(args, f.MinHeight)
	}
	if f.MaxHeight > 0 {
		conds, args = append(conds, "height <= ?"), append(args, f.MaxHeight)
	}
	countConds, countArgs := append([]string(nil), conds...), append([]any(nil), args...)
	switch p.After.Kind {
	case CursorSequence:
		if p.Desc {
			conds, args = append(conds, "id < ?"), append(args, p.After.Value)
		} else {
			conds, args = append(conds, "id > ?"), append(args, p.After.Value)
		}
	case CursorHeight:
		if p.Desc {
			conds, args = append(conds, "height < ?"), append(args, p.After.Value)
		} else {
			conds, args = append(conds, "height > ?"), append(args, p.After.Value)
		}
	}
	offset := int64(0)
	if p.After.Kind == CursorNone {
		offset = p.Offset
	}
	order := " ORDER BY id ASC"
	if p.Desc {
		order = " ORDER BY id DESC"
	}
	where := func(extra string, cs []string) string {
		all := cs
		if extra != "" {
			all = append([]string{extra}, cs...)
		}
		if len(all) == 0 {
			return ""
		}
		return " WHERE " + strings.Join(all, " AND ")
	}
	cols := strings.Join(transferCols, ", ")
	var from string
	var fromArgs []any
	switch {
	case f.Account != nil && f.Direction == DirectionBoth && offset == 0 && d.be.Dialect() == sqldb.Postgres:
		// A first or cursor page on PostgreSQL: the ids of each side's page as two arrays
		// (each an InitPlan), their rows read by one seek each on the primary key. PostgreSQL
		// plans this query on every execution (its custom plans win over the generic one), and
		// it plans in about 0.25 ms where the UNION below takes 0.3 and a UNION of whole rows
		// 0.4 (EXPLAIN ANALYZE of the prepared statement, docs/performance.md).
		n := strconv.Itoa(limit)
		side := func(col string) string {
			return "ARRAY(SELECT id FROM transfer" + where(col+" = ?", conds) + order + " LIMIT " + n + ")"
		}
		from = " FROM transfer WHERE id = ANY(" + side("from_addr") + " || " + side("to_addr") + ")"
		fromArgs = append(append(append(append(fromArgs, f.Account), args...), f.Account), args...)
	case f.Account != nil && f.Direction == DirectionBoth:
		// Each side is cut at the rows the page can need, so the merge reads at most
		// 2 × (offset + limit) index entries whatever the account's history.
		n := strconv.FormatInt(offset+int64(limit), 10)
		side := func(col string) string {
			return "SELECT id FROM (SELECT id FROM transfer" + where(col+" = ?", conds) + order + " LIMIT " + n + ") s_" + col
		}
		from = " FROM transfer WHERE id IN (" + side("from_addr") + " UNION " + side("to_addr") + ")"
		fromArgs = append(append(append(append(fromArgs, f.Account), args...), f.Account), args...)
	case f.Account != nil:
		col := "to_addr"
		if f.Direction == DirectionOut {
			col = "from_addr"
		}
		from = " FROM transfer" + where(col+" = ?", conds)
		fromArgs = append(append(fromArgs, f.Account), args...)
	default:
		from = " FROM transfer" + where("", conds)
		fromArgs = args
	}
	tail := order + " LIMIT " + strconv.Itoa(limit)
	if offset > 0 {
		tail += " OFFSET " + strconv.FormatInt(offset, 10)
	}
	if !p.CountTotal {
		out, err := d.scanTransfers(ctx, c, "SELECT "+cols+from+tail, fromArgs, limit, nil)
		if err != nil {
			return TransferPage{}, err
		}
		return TransferPage{Transfers: out}, nil
	}
	// The total rides on the page's statement as a scalar subquery (evaluated once), so a
	// counted page is one statement and, on PostgreSQL, one round trip; a page without rows
	// has no row to carry it and reads it alone.
	cq, cargs := countTransfersQuery(f, countConds, countArgs, where)
	var total int64
	out, err := d.scanTransfers(ctx, c, "SELECT "+cols+", ("+cq+")"+from+tail, append(cargs, fromArgs...), limit, &total)
	if err != nil {
		return TransferPage{}, err
	}
	if len(out) == 0 {
		if total, err = countRow(ctx, c, cq, cargs); err != nil {
			return TransferPage{}, err
		}
	}
	return TransferPage{Transfers: out, Total: total}, nil
}

// countTransfersQuery is the query of a list's total: one row of one column, or no row for an
// account or denom without kept counts (a total of zero).
func countTransfersQuery(f TransferFilter, conds []string, args []any, where func(string, []string) string) (string, []any) {
	var qargs []any
	switch {
	case f.Account != nil && len(conds) == 0:
		// An account's whole list: its counts, kept by the writer (transfer_account).
		switch f.Direction {
		case DirectionIn:
			return "SELECT n_in FROM transfer_account WHERE account = ?", []any{f.Account}
		case DirectionOut:
			return "SELECT n_out FROM transfer_account WHERE account = ?", []any{f.Account}
		default:
			return "SELECT n_in + n_out - n_self FROM transfer_account WHERE account = ?", []any{f.Account}
		}
	case f.Denom != "" && len(conds) == 1 && f.Account == nil:
		// A denom's whole list: its count (transfer_denom_count).
		return "SELECT n FROM transfer_denom_count WHERE denom = ?", []any{f.Denom}
	case f.Account != nil && f.Direction == DirectionBoth:
		// |from ∪ to| = |from| + |to| - |from ∩ to| (an account's transfers to itself).
		q := "SELECT (SELECT COUNT(*) FROM transfer" + where("from_addr = ?", conds) + ") + (SELECT COUNT(*) FROM transfer" +
			where("to_addr = ?", conds) + ") - (SELECT COUNT(*) FROM transfer" + where("from_addr = ? AND to_addr = ?", conds) + ")"
		qargs = append(qargs, f.Account)
		qargs = append(qargs, args...)
		qargs = append(qargs, f.Account)
		qargs = append(qargs, args...)
		qargs = append(qargs, f.Account, f.Account)
		qargs = append(qargs, args...)
		return q, qargs
	case f.Account != nil:
		col := "to_addr"
		if f.Direction == DirectionOut {
			col = "from_addr"
		}
		return "SELECT COUNT(*) FROM transfer" + where(col+" = ?", conds), append(append(qargs, f.Account), args...)
	default:
		return "SELECT COUNT(*) FROM transfer" + where("", conds), append(qargs, args...)
	}
}

// countRow reads one count; no row is zero.
func countRow(ctx context.Context, c sqldb.Conn, q string, args []any) (int64, error) {
	var n int64
	if err := queryRow(ctx, c, q, args, &n); err != nil && !errors.Is(err, ErrNotFound) {
		return 0, fmt.Errorf("count transfers: %w", err)
	}
	return n, nil
}

// scanTransfers reads the rows of a transfer query; with total set, each row ends with the
// list's total (NULL: zero), read into it.
func (d *DB) scanTransfers(ctx context.Context, c sqldb.Conn, q string, args []any, hint int, total *int64) ([]TransferRecord, error) {
	r, err := c.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("transfers: %w", err)
	}
	defer r.Close()
	out := make([]TransferRecord, 0, min(hint, 1000))
	// One set of destinations for every row: each row starts from zero values, so the
	// drivers' copies of its bytes are its own.
	var t TransferRecord
	var timeNs int64
	var msg, n *int64
	var tokenID, cp, cpAddr *string
	dest := []any{&t.ID, &t.Height, &timeNs, &t.TxHash, &msg, &t.Kind, &t.From, &t.To, &t.Denom, &t.Contract,
		&t.Amount, &tokenID, &cp, &cpAddr, &n}
	if total == nil {
		dest = dest[:len(dest)-1]
	}
	for r.Next() {
		t, msg, n, tokenID, cp, cpAddr = TransferRecord{}, nil, nil, nil, nil, nil
		if err := r.Scan(dest...); err != nil {
			return nil, fmt.Errorf("transfers: scan: %w", err)
		}
		if n != nil {
			*total = *n
		}
		t.Time = time.Unix(0, timeNs).UTC()
		t.MsgIndex, t.Transfer.MsgIndex = -1, -1
		if msg != nil {
			t.MsgIndex, t.Transfer.MsgIndex = int(*msg), int(*msg)
		}
		t.TxIndex = -1
		if tokenID != nil {
			t.TokenID = *tokenID
		}
		if cp != nil {
			t.Counterparty = *cp
		}
		if cpAddr != nil {
			t.CounterpartyAddr = *cpAddr
		}
		out = append(out, t)
	}
	return out, r.Err()
}

// HeightRange implements Reader over the block time index (migration 0011): one seek per side.
func (d *DB) HeightRange(ctx context.Context, start, end time.Time) (lo, hi int64, empty bool, err error) {
	c := d.be.Reader()
	lo, hi = 1, 0
	if !start.IsZero() {
		err = queryRow(ctx, c, "SELECT height FROM block WHERE time_ns >= ? ORDER BY time_ns, height LIMIT 1", []any{start.UnixNano()}, &lo)
		if errors.Is(err, ErrNotFound) {
			return 0, 0, true, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("height range: start: %w", err)
		}
	}
	if !end.IsZero() {
		err = queryRow(ctx, c, "SELECT height FROM block WHERE time_ns <= ? ORDER BY time_ns DESC, height DESC LIMIT 1", []any{end.UnixNano()}, &hi)
		if errors.Is(err, ErrNotFound) {
			return 0, 0, true, nil
		}
		if err != nil {
			return 0, 0, false, fmt.Errorf("height range: end: %w", err)
		}
	} else if hi, err = d.IndexedHeight(ctx); err != nil {
		return 0, 0, false, err
	}
	return lo, hi, lo > hi, nil
}

func init() {
	dumpTables = append(dumpTables, dumpTable{"transfer", "id", transferCols, "iiibIsbbsbsSSS"},
		dumpTable{"transfer_account", "account", []string{"account", "n_in", "n_out", "n_self"}, "biii"},
		dumpTable{"transfer_denom_count", "denom", []string{"denom", "n"}, "si"},
		dumpTable{"transfer_backfill", "id", []string{"id", "next_height", "end_height", "rows"}, "iiii"})
	singleRowDefaults["transfer_backfill"] = "UPDATE transfer_backfill SET next_height = 0, end_height = 0, rows = 0 WHERE id = 1"
}
