package store

// Block reads. Heights are dense from the indexed_height row's first_height to its height, so
// offsets and totals of the block list are arithmetic.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

const blockCols = "height, chain_id, hash, time_ns, block_time_ms, proposer, gas_used, gas_wanted, tx_count, total_fee"

// scanBlocks reads block rows; hint is how many to expect (the page's limit), so the slice
// is allocated once. The text and byte columns are read as the driver's bytes, valid until the
// next row: the chain id is shared by every block of the page, a proposer is decoded once per
// process (proposerCache), and the hashes and fees are copied into one buffer per page. A
// 20-block page on PostgreSQL went from 277 allocations to 63 this way (docs/performance.md),
// and the garbage collector's share of a block list's CPU went with them.
func scanBlocks(r sqldb.Rows, hint int) ([]Block, error) {
	defer r.Close()
	n := min(max(hint, 1), 100)
	out := make([]Block, 0, n)
	cols := sqldb.NewRawCols(r, 4)
	var chainID string
	var buf []byte
	ends := make([]int, 0, 2*n) // per block: end of its hash, end of its fee in buf
	// One row's destinations, built once: Scan's arguments escape, so per-row variables
	// would be allocated for every row.
	var b Block
	var tns int64
	dest := []any{&b.Height, cols.Dest(0), cols.Dest(1), &tns, &b.BlockTimeMs, cols.Dest(2), &b.GasUsed, &b.GasWanted, &b.TxCount, cols.Dest(3)}
	for r.Next() {
		b = Block{}
		if err := r.Scan(dest...); err != nil {
			return nil, err
		}
		if id := cols.Get(0); string(id) != chainID { // compared without a copy
			chainID = string(id)
		}
		b.ChainID = chainID
		b.Time = time.Unix(0, tns).UTC()
		if text := cols.Get(2); text != nil { // NULL: no proposer
			p, err := proposers.decode(text)
			if err != nil {
				return nil, fmt.Errorf("block %d proposer: %w", b.Height, err)
			}
			b.Proposer = p
		}
		hash, fee := cols.Get(1), cols.Get(3)
		if buf == nil {
			buf = make([]byte, 0, (len(hash)+len(fee))*n+(len(hash)+len(fee))*n/4)
		}
		buf = append(buf, hash...)
		ends = append(ends, len(buf))
		buf = append(buf, fee...)
		ends = append(ends, len(buf))
		out = append(out, b)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	// Sliced once the buffer stopped moving, each slice's capacity ending with it.
	start := 0
	for i := range out {
		h, f := ends[2*i], ends[2*i+1]
		out[i].Hash = buf[start:h:h]
		out[i].TotalFee = json.RawMessage(buf[h:f:f])
		start = f
	}
	return out, nil
}

// proposerCache decodes each stored proposer text once: a chain has few proposers, and
// decoding the JSON was a third of a block list's allocations (see docs/performance.md). The
// decoded values are shared between the blocks that name them, so readers must not modify a
// Block's Proposer.
type proposerCache struct {
	mu sync.Mutex
	m  map[string]*Proposer
}

// maxProposers bounds the cache; past it the cache starts over (a chain rotating through
// more proposers than that only loses the saving).
const maxProposers = 1024

var proposers = proposerCache{m: map[string]*Proposer{}}

func (c *proposerCache) decode(text []byte) (*Proposer, error) {
	c.mu.Lock()
	p, ok := c.m[string(text)] // looked up without a copy
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	p = new(Proposer)
	if err := json.Unmarshal(text, p); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= maxProposers {
		c.m = map[string]*Proposer{}
	}
	c.m[string(text)] = p
	c.mu.Unlock()
	return p, nil
}

// Block implements Reader.
func (d *DB) Block(ctx context.Context, height int64) (Block, error) {
	return readRetrying(ctx, d, func() (Block, error) { return d.block(ctx, height) })
}

func (d *DB) block(ctx context.Context, height int64) (Block, error) {
	r, err := d.be.Reader().Query(ctx, "SELECT "+blockCols+" FROM block WHERE height = ?", height)
	if err != nil {
		return Block{}, fmt.Errorf("block %d: %w", height, err)
	}
	bs, err := scanBlocks(r, 1)
	if err != nil {
		return Block{}, fmt.Errorf("block %d: %w", height, err)
	}
	if len(bs) == 0 {
		return Block{}, ErrNotFound
	}
	return bs[0], nil
}

// Blocks implements Reader. Heights are dense from first_height to height, so an offset is a
// height and the total is a subtraction.
func (d *DB) Blocks(ctx context.Context, p Page) (BlockPage, error) {
	return readRetrying(ctx, d, func() (BlockPage, error) { return d.blocks(ctx, p) })
}

func (d *DB) blocks(ctx context.Context, p Page) (BlockPage, error) {
	c := d.be.Reader()
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
	r, err := c.Query(ctx, "SELECT "+blockCols+" FROM block WHERE "+cond+" ORDER BY height "+dir(p.Desc)+" LIMIT ?", bound, limitOf(p))
	if err != nil {
		return BlockPage{}, fmt.Errorf("blocks: %w", err)
	}
	bs, err := scanBlocks(r, limitOf(p))
	if err != nil {
		return BlockPage{}, fmt.Errorf("blocks: %w", err)
	}
	out := BlockPage{Blocks: bs, Final: d.Retention() == 0 && blocksFinal(p, st, len(bs))}
	if p.CountTotal && st.height > 0 {
		out.Total = st.height - st.firstHeight + 1
	}
	return out, nil
}

// AvgBlockTime implements Reader.
func (d *DB) AvgBlockTime(ctx context.Context, n int) (float64, error) {
	return readRetrying(ctx, d, func() (float64, error) { return d.avgBlockTime(ctx, n) })
}

func (d *DB) avgBlockTime(ctx context.Context, n int) (float64, error) {
	c := d.be.Reader()
	st, err := d.readerState(ctx, c)
	if err != nil {
		return 0, err
	}
	lo := max(st.firstHeight, st.height-int64(n)+1)
	if st.height-lo < 1 {
		return 0, nil
	}
	// Both ends in one statement: on PostgreSQL each statement is a round trip, which is most
	// of what this route costs.
	var tLo, tHi sql.NullInt64
	err = queryRow(ctx, c, "SELECT MIN(CASE WHEN height = ? THEN time_ns END), MAX(CASE WHEN height = ? THEN time_ns END) FROM block WHERE height IN (?, ?)",
		[]any{lo, st.height, lo, st.height}, &tLo, &tHi)
	if err == nil && (!tLo.Valid || !tHi.Valid) {
		err = ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("avg block time: %w", err)
	}
	// Rollytics reads the times back from PostgreSQL, which keeps microseconds (truncated on
	// the way in), so the average is taken over whole microseconds.
	return float64(tHi.Int64/1000-tLo.Int64/1000) / 1e6 / float64(st.height-lo), nil
}
