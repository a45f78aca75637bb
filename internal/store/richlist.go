package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// BalanceChange moves one holder's balance of one denom by Delta (negative: spent).
type BalanceChange struct {
	Denom   string
	Account []byte
	Delta   *big.Int
}

// BalanceSet fixes a holder's balance as of the end of its block: the bootstrap from genesis,
// or a balance read back from the chain after a change would have taken it below zero.
type BalanceSet struct {
	Denom   string
	Account []byte
	Amount  *big.Int
}

// RichListChanges are one block's rich-list updates, its rows of the rich list in
// BlockBundle.Extensions; a bundle without them leaves the rich list untouched.
type RichListChanges struct {
	Changes []BalanceChange // in event order
	Sets    []BalanceSet    // applied after Changes
	// Aliases name denoms for requests (lowercase alias → stored denom), e.g. EVM bank denoms
	// resolved to their ERC-20 contracts.
	Aliases map[string]string
	// Ordered applies the changes only where they continue the rich list: to a list standing
	// at the previous height or, with Start, to one not started yet (height 0). Otherwise the
	// block's changes are left out and the rich list stays behind, for the ingest side's
	// follower to bring up (WriteRichList) while the core tables go on. Unordered changes
	// (synthetic stores, tests) apply whatever the list's height.
	Ordered bool
	// Start marks the starting balances (Sets read from genesis or from the chain's state).
	Start bool
}

func (*RichListChanges) WriterName() string         { return "rich_list" }
func (*RichListChanges) NewWriter() ExtensionWriter { return &richListWriter{} }
func (r *RichListChanges) Count() int               { return len(r.Changes) + len(r.Sets) }

// richBlock is one height's rich-list changes as the writer took them.
type richBlock struct {
	height int64
	rl     *RichListChanges
}

// richListWriter applies the rich-list changes of one WriteBlocks or WriteRichList call.
type richListWriter struct{ blocks []richBlock }

func (w *richListWriter) Add(b *BlockBundle, rows ExtensionRows, _ int64) {
	w.blocks = append(w.blocks, richBlock{height: b.Block.Height, rl: rows.(*RichListChanges)})
}

// RichListBlock is one height's rich-list changes, written apart from its block by
// WriteRichList (Changes are applied as Ordered).
type RichListBlock struct {
	Height  int64
	Changes RichListChanges
}

// NegativeBalanceError reports a change that would take a balance below zero. WriteBlocks
// then writes nothing; the caller reads the balance from the chain at Height and retries with
// a BalanceSet for it.
type NegativeBalanceError struct {
	Height  int64
	Denom   string
	Account []byte
	Amount  *big.Int // the balance the changes would have left
}

func (e *NegativeBalanceError) Error() string {
	return fmt.Sprintf("rich list: balance of %x in %s would be %s at height %d", e.Account, e.Denom, e.Amount, e.Height)
}

// Holder is one rich-list row.
type Holder struct {
	Account []byte
	Amount  *big.Int
}

// HolderPage is one page of holders; Total is the denom's number of holders (0 when not
// counted).
type HolderPage struct {
	Holders []Holder
	Total   int64
}

// RichListReader is the API side of the rich list.
type RichListReader interface {
	// RichListHeight is the last height applied to the rich list (0: not tracked).
	RichListHeight(ctx context.Context) (int64, error)
	// RichListAlias returns the stored denom a lowercase alias names, or "" when none does.
	RichListAlias(ctx context.Context, alias string) (string, error)
	// Holders lists a denom's holders by amount (descending when p.Desc) with the account as
	// tie-break, at p.Offset; an unknown denom is an empty page.
	Holders(ctx context.Context, denom string, p Page) (HolderPage, error)
	// Balances lists one account's non-zero balances, by denom, with the rich list's height
	// they stand at (richbalance.go).
	Balances(ctx context.Context, account []byte) (AccountBalances, error)
}

var _ RichListReader = (*DB)(nil)

// maxUint256 bounds stored amounts (32 bytes).
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

func encodeAmount(a *big.Int) ([]byte, error) {
	if a.Sign() < 0 || a.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("rich list: amount %s outside uint256", a)
	}
	return a.FillBytes(make([]byte, 32)), nil
}

type holderKey struct{ denom, account string }

// richRank is the rich list's rank-bucket list (migration 0006): a denom's holders in
// (amount_desc, account) order, i.e. amount descending with the account as tie-break.
var richRank = rankList{table: "rich_list_rank", scope: []string{"denom"}, src: "rich_list r", srcScope: []string{"r.denom"},
	cols: []string{"amount_desc", "account"}, srcCols: []string{"r.amount_desc", "r.account"}, types: "bb", seek: []int{0, 1}}

// amountDesc complements an encoded amount: ascending bytes are descending amounts.
func amountDesc(enc []byte) []byte {
	out := make([]byte, len(enc))
	for i, b := range enc {
		out[i] = ^b
	}
	return out
}

// write applies the blocks' rich-list changes inside the write transaction. The balances are
// read once for the whole batch; rows and rank buckets are written block by block, so the
// buckets split where they would with one block per transaction (rankCache.add).
func (w *richListWriter) Write(ctx context.Context, wt sqldb.Tx, forUpdate string) error {
	blocks, err := orderedRichList(ctx, wt, forUpdate, w.blocks)
	if err != nil || len(blocks) == 0 {
		return err
	}
	// Each block's holders and bucket changes are a few statements: queued, they reach
	// PostgreSQL with the next read (a bucket split's) or at the end, not one round trip each.
	tx := newQueuedTx(wt)
	if err := applyRichList(ctx, tx, blocks); err != nil {
		return err
	}
	return tx.flush(ctx)
}

// orderedRichList returns the blocks whose rich-list changes apply: every unordered one, and
// the ordered ones that continue the list from the height it stands at (read under the row's
// lock, so a follower writing beside the block writer never applies a height twice).
func orderedRichList(ctx context.Context, tx sqldb.Tx, forUpdate string, blocks []richBlock) ([]richBlock, error) {
	ordered := false
	for _, b := range blocks {
		if b.rl.Ordered {
			ordered = true
			break
		}
	}
	if !ordered {
		return blocks, nil
	}
	var h int64
	if err := queryRow(ctx, tx, "SELECT height FROM rich_list_state WHERE id = 1"+forUpdate, nil, &h); err != nil {
		return nil, fmt.Errorf("read rich_list_state: %w", err)
	}
	out := make([]richBlock, 0, len(blocks))
	for _, b := range blocks {
		if rl := b.rl; rl.Ordered {
			if h == 0 && !rl.Start || h > 0 && b.height != h+1 {
				continue
			}
			h = b.height
		}
		out = append(out, b)
	}
	return out, nil
}

// WriteRichList applies rich-list blocks apart from their blocks' writes, in one transaction:
// the ingest side's follower bringing a list that fell behind (or could not start) up to the
// indexed height. Blocks that do not continue the list (see RichListChanges.Ordered) are
// skipped, so a block the block writer applied meanwhile is not applied twice. A
// *NegativeBalanceError writes nothing, as in WriteBlocks.
func (d *DB) WriteRichList(ctx context.Context, blocks []RichListBlock) error {
	if len(blocks) == 0 {
		return nil
	}
	d.writeMu.Lock()
	defer d.writeMu.Unlock()
	rbs := make([]richBlock, len(blocks))
	for i := range blocks {
		rl := blocks[i].Changes
		rl.Ordered = true
		rbs[i] = richBlock{height: blocks[i].Height, rl: &rl}
	}
	return inTx(ctx, d.be, func(tx sqldb.Tx) (func(), error) {
		// The readers' rank buckets are kept per indexed height, which this write does not move.
		return d.ranks.clear, (&richListWriter{blocks: rbs}).Write(ctx, tx, d.be.ForUpdate())
	})
}

// applyRichList applies the blocks' changes and moves rich_list_state to the last of them.
func applyRichList(ctx context.Context, tx sqldb.Tx, blocks []richBlock) error {
	var keys []holderKey
	seen := map[holderKey]bool{}
	last := int64(0)
	touch := func(denom string, acc []byte) {
		k := holderKey{denom, string(acc)}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, b := range blocks {
		last = b.height
		for _, c := range b.rl.Changes {
			touch(c.Denom, c.Account)
		}
		for _, s := range b.rl.Sets {
			touch(s.Denom, s.Account)
		}
	}
	if last == 0 {
		return nil
	}
	cur, err := loadBalances(ctx, tx, keys)
	if err != nil {
		return err
	}
	// stored holds each touched holder's amount as the table has it (absent: no row yet).
	stored := make(map[holderKey][]byte, len(cur))
	for k, v := range cur {
		if stored[k], err = encodeAmount(v); err != nil {
			return err
		}
	}
	rows := &holderRows{amounts: stored}
	ranks := newRankCache(tx)
	ranks.beforeSrc = func(ctx context.Context) error { return rows.flush(ctx, tx) }
	aliases := map[string]string{}
	newHolders := map[string]int64{}
	var denoms []string
	for _, b := range blocks {
		rl := b.rl
		var order []holderKey
		touched := map[holderKey]bool{}
		mark := func(k holderKey) *big.Int {
			if !touched[k] {
				touched[k] = true
				order = append(order, k)
			}
			if cur[k] == nil {
				cur[k] = new(big.Int)
			}
			return cur[k]
		}
		for _, c := range rl.Changes {
			v := mark(holderKey{c.Denom, string(c.Account)})
			v.Add(v, c.Delta)
		}
		for _, s := range rl.Sets {
			mark(holderKey{s.Denom, string(s.Account)}).Set(s.Amount)
		}
		for _, k := range order {
			if cur[k].Sign() < 0 {
				return &NegativeBalanceError{Height: b.height, Denom: k.denom, Account: []byte(k.account), Amount: new(big.Int).Set(cur[k])}
			}
		}
		for a, d := range rl.Aliases {
			aliases[a] = d
		}
		if err := writeHolders(ctx, rows, ranks, order, cur, stored, func(denom string) {
			if newHolders[denom] == 0 {
				denoms = append(denoms, denom)
			}
			newHolders[denom]++
		}); err != nil {
			return err
		}
	}
	if err := rows.flush(ctx, tx); err != nil {
		return err
	}
	for _, d := range denoms {
		if err := tx.Exec(ctx, "INSERT INTO rich_list_denom (denom, holders) VALUES (?, ?) ON CONFLICT (denom) DO UPDATE SET holders = rich_list_denom.holders + excluded.holders",
			d, newHolders[d]); err != nil {
			return fmt.Errorf("update rich_list_denom: %w", err)
		}
	}
	for a, d := range aliases {
		if err := tx.Exec(ctx, "INSERT INTO rich_list_alias (alias, denom) VALUES (?, ?) ON CONFLICT (alias) DO UPDATE SET denom = excluded.denom", a, d); err != nil {
			return fmt.Errorf("update rich_list_alias: %w", err)
		}
	}
	if err := tx.Exec(ctx, "UPDATE rich_list_state SET height = ? WHERE id = 1", last); err != nil {
		return fmt.Errorf("update rich_list_state: %w", err)
	}
	return nil
}

// holderRows holds back the rich_list rows of a write's blocks until its end (or a read of
// the table, a rank bucket's split), then writes each touched holder once, with its last
// balance, in first-touch order. Written once per block as before, a holder that every block
// touches (a fee collector, a busy sender) was updated once per block of the batch, and on
// PostgreSQL each update of a row already updated in the same transaction walks the row's
// earlier versions: those upserts were about a quarter of the server's time to the top of the
// busy capture. The table ends each write as before, and reads it the same at every split.
type holderRows struct {
	amounts map[holderKey][]byte // encoded, as writeHolders leaves them in stored
	seen    map[holderKey]bool
	keys    []holderKey
}

func (h *holderRows) add(k holderKey) {
	if h.seen == nil {
		h.seen = map[holderKey]bool{}
	}
	if !h.seen[k] {
		h.seen[k] = true
		h.keys = append(h.keys, k)
	}
}

// flush upserts the held rows.
func (h *holderRows) flush(ctx context.Context, tx sqldb.Tx) error {
	for start := 0; start < len(h.keys); start += dictChunk {
		chunk := h.keys[start:min(start+dictChunk, len(h.keys))]
		args := make([]any, 0, 4*len(chunk))
		for _, k := range chunk {
			amt := h.amounts[k]
			args = append(args, k.denom, []byte(k.account), amt, amountDesc(amt))
		}
		q := "INSERT INTO rich_list (denom, account, amount, amount_desc) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", len(chunk)), ",") +
			" ON CONFLICT (denom, account) DO UPDATE SET amount = excluded.amount, amount_desc = excluded.amount_desc"
		if err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("update rich_list: %w", err)
		}
	}
	h.keys, h.seen = h.keys[:0], nil
	return nil
}

// writeHolders records one block's touched holders (keys, balances in cur) in rows and moves
// each whose amount changed to its new place in the rank buckets; stored tracks what the table
// holds (rows writes it from there) and created is called for each new holder. The buckets
// split only in ranks.flush, after every key is moved, so a split reads the table agreeing
// with the counts. An amount outside uint256 fails the write, whose transaction then rolls
// back whatever was counted before it.
func writeHolders(ctx context.Context, rows *holderRows, ranks *rankCache, keys []holderKey, cur map[holderKey]*big.Int, stored map[holderKey][]byte, created func(denom string)) error {
	for _, k := range keys {
		amt, err := encodeAmount(cur[k])
		if err != nil {
			return err
		}
		rows.add(k)
		scope := []any{k.denom}
		old, had := stored[k]
		switch {
		case !had:
			created(k.denom)
		case bytes.Equal(old, amt):
			continue
		default:
			if err := ranks.del(ctx, richRank, scope, []any{amountDesc(old), []byte(k.account)}); err != nil {
				return err
			}
		}
		if err := ranks.add(ctx, richRank, scope, []any{amountDesc(amt), []byte(k.account)}, false); err != nil {
			return err
		}
		stored[k] = amt
	}
	return ranks.flush(ctx)
}

// loadBalances reads the stored balances of keys (absent holders are absent from the map).
func loadBalances(ctx context.Context, c sqldb.Conn, keys []holderKey) (map[holderKey]*big.Int, error) {
	byDenom := map[string][]any{}
	var denoms []string
	for _, k := range keys {
		if _, ok := byDenom[k.denom]; !ok {
			denoms = append(denoms, k.denom)
		}
		byDenom[k.denom] = append(byDenom[k.denom], []byte(k.account))
	}
	out := map[holderKey]*big.Int{}
	for _, d := range denoms {
		accs := byDenom[d]
		for start := 0; start < len(accs); start += dictChunk {
			chunk := accs[start:min(start+dictChunk, len(accs))]
			r, err := c.Query(ctx, "SELECT account, amount FROM rich_list WHERE denom = ? AND account IN ("+placeholders(len(chunk))+")", append([]any{d}, chunk...)...)
			if err != nil {
				return nil, fmt.Errorf("read rich_list: %w", err)
			}
			for r.Next() {
				var acc, amt []byte
				if err := r.Scan(&acc, &amt); err != nil {
					r.Close()
					return nil, err
				}
				out[holderKey{d, string(acc)}] = new(big.Int).SetBytes(amt)
			}
			err = r.Err()
			r.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// RichListHeight implements RichListReader.
func (d *DB) RichListHeight(ctx context.Context) (int64, error) {
	return readRetrying(ctx, d, func() (int64, error) { // as InternalTxHeight
		var h int64
		if err := queryRow(ctx, d.be.Reader(), "SELECT height FROM rich_list_state WHERE id = 1", nil, &h); err != nil {
			return 0, fmt.Errorf("rich list height: %w", err)
		}
		return h, nil
	})
}

// RichListAlias implements RichListReader.
func (d *DB) RichListAlias(ctx context.Context, alias string) (string, error) {
	var denom string
	err := queryRow(ctx, d.be.Reader(), "SELECT denom FROM rich_list_alias WHERE alias = ?", []any{alias}, &denom)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("rich list alias: %w", err)
	}
	return denom, nil
}

// Holders implements RichListReader. Pages are offsets, as rollytics' keys ask: a shallow one
// is skipped on the (denom, amount_desc, account) index, a deep one (past one bucket) seeks to
// its rank bucket first and skips only inside it. amount_desc is the amount complemented, so the
// index alone answers the page.
func (d *DB) Holders(ctx context.Context, denom string, p Page) (HolderPage, error) {
	c := d.be.Reader()
	out := HolderPage{Holders: []Holder{}}
	if p.CountTotal {
		err := queryRow(ctx, c, "SELECT holders FROM rich_list_denom WHERE denom = ?", []any{denom}, &out.Total)
		if errors.Is(err, ErrNotFound) {
			return out, nil
		}
		if err != nil {
			return HolderPage{}, fmt.Errorf("rich list total: %w", err)
		}
	}
	// Amount descending is the index's ascending order; ascending amounts walk it backwards.
	back := !p.Desc
	order := richRank.orderBy(richRank.srcCols, back)
	if p.Offset >= rankBucketSize {
		hs, ok, err := d.deepHolders(ctx, c, denom, p, back)
		if err != nil {
			return HolderPage{}, fmt.Errorf("rich list: %w", err)
		}
		if ok {
			out.Holders = hs
			return out, nil
		}
	}
	r, err := c.Query(ctx, "SELECT r.account, r.amount_desc FROM rich_list r WHERE r.denom = ? ORDER BY "+order+" LIMIT ? OFFSET ?", denom, limitOf(p), p.Offset)
	if err != nil {
		return HolderPage{}, fmt.Errorf("rich list: %w", err)
	}
	defer r.Close()
	for r.Next() {
		var acc, amt []byte
		if err := r.Scan(&acc, &amt); err != nil {
			return HolderPage{}, err
		}
		out.Holders = append(out.Holders, Holder{Account: acc, Amount: new(big.Int).SetBytes(amountDesc(amt))})
	}
	return out, r.Err()
}

// deepHolders answers a deep offset through the denom's rank buckets, as kept by d.ranks: the
// page query reads the indexed height in the same statement and, when the buckets it used are
// of another height, they are reread and the page asked again. ok is false when the denom has
// no buckets or the heights kept moving (the caller then skips on the index).
func (d *DB) deepHolders(ctx context.Context, c sqldb.Conn, denom string, p Page, back bool) (hs []Holder, ok bool, err error) {
	key := richRank.table + "\x00" + denom
	scope := []any{denom}
	for attempt := 0; attempt < 3; attempt++ {
		snap := d.ranks.get(key)
		if snap == nil || attempt > 0 {
			if snap, err = richRank.load(ctx, c, scope); err != nil {
				return nil, false, fmt.Errorf("rank buckets: %w", err)
			}
			d.ranks.put(key, snap)
		}
		where, args, rest, ok := richRank.seekSnap(snap, p.Offset, limitOf(p), back)
		if !ok {
			return nil, false, nil
		}
		// The LEFT JOIN yields the height even for an empty page.
		q := "SELECT s.height, p.account, p.amount_desc FROM indexed_height s LEFT JOIN (SELECT r.account, r.amount_desc FROM rich_list r WHERE r.denom = ? AND " +
			strings.Join(append(where, "1 = 1"), " AND ") + " ORDER BY " + richRank.orderBy(richRank.srcCols, back) + " LIMIT ? OFFSET ?) p ON 1 = 1 WHERE s.id = 1 ORDER BY " +
			richRank.orderBy([]string{"p.amount_desc", "p.account"}, back)
		r, err := c.Query(ctx, q, append(append(append([]any{}, denom), args...), limitOf(p), rest)...)
		if err != nil {
			return nil, false, err
		}
		var h int64
		hs = hs[:0]
		for r.Next() {
			var acc, amt []byte
			if err := r.Scan(&h, &acc, &amt); err != nil {
				r.Close()
				return nil, false, err
			}
			if acc != nil {
				hs = append(hs, Holder{Account: acc, Amount: new(big.Int).SetBytes(amountDesc(amt))})
			}
		}
		err = r.Err()
		r.Close()
		if err != nil {
			return nil, false, err
		}
		if h == snap.height {
			if hs == nil {
				hs = []Holder{}
			}
			return hs, true, nil
		}
	}
	return nil, false, nil
}

func init() {
	dumpTables = append(dumpTables,
		dumpTable{"rich_list", "denom, account", []string{"denom", "account", "amount"}, "sbb"},
		dumpTable{"rich_list_denom", "denom", []string{"denom", "holders"}, "si"},
		dumpTable{"rich_list_alias", "alias", []string{"alias", "denom"}, "ss"},
		dumpTable{"rich_list_state", "id", []string{"id", "height"}, "ii"},
		dumpTable{"rich_list_rank", "denom, amount_desc, account", []string{"denom", "amount_desc", "account", "n"}, "sbbi"},
	)
}
