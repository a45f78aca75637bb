package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/sqldb"
)

const collectionCols = "c.addr, c.name, c.origin_name, c.creator, c.nft_count, c.height, c.time_ns"

func scanCollections(r sqldb.Rows) ([]Collection, error) {
	defer r.Close()
	out := []Collection{}
	for r.Next() {
		var c Collection
		var tns int64
		if err := r.Scan(&c.Addr, &c.Name, &c.OriginName, &c.Creator, &c.NFTCount, &c.Height, &tns); err != nil {
			return nil, err
		}
		c.Time = time.Unix(0, tns).UTC()
		out = append(out, c)
	}
	return out, r.Err()
}

// Collection implements NFTReader.
func (d *DB) Collection(ctx context.Context, addr []byte) (Collection, error) {
	r, err := d.be.Reader().Query(ctx, "SELECT "+collectionCols+" FROM nft_collection c WHERE c.addr = ?", nonNil(addr))
	if err != nil {
		return Collection{}, fmt.Errorf("collection: %w", err)
	}
	cs, err := scanCollections(r)
	if err != nil {
		return Collection{}, fmt.Errorf("collection: %w", err)
	}
	if len(cs) == 0 {
		return Collection{}, ErrNotFound
	}
	return cs[0], nil
}

// Collections implements NFTReader. Collections are few next to tokens (a chain has
// thousands, not millions), so an offset is skipped on the (height, addr) index.
func (d *DB) Collections(ctx context.Context, f CollectionFilter, p Page) (CollectionPage, error) {
	c := d.be.Reader()
	var where []string
	var args []any
	if f.Owner != nil {
		// The owner's collections from their counts (migration 0007), not from every token
		// the owner holds.
		where = append(where, "c.addr IN (SELECT oc.collection_addr FROM nft_owner_collection oc WHERE oc.owner = ?)")
		args = append(args, nonNil(f.Owner))
	}
	// heightOrder is the ORDER BY's first column. A name search matches few collections of
	// many and no index can find a substring, so every row is read anyway: "+c.height" keeps
	// SQLite from walking the height index with a table lookup per collection and has it scan
	// the table and sort the few matches instead. On the bench store's 1,000 collections (a
	// loaded machine, Python sqlite3): page 0.3 ms instead of 2.8, count 0.2 ms instead of 1.7,
	// with the substring test below.
	heightOrder := "c.height"
	if n := NormalizeCollectionName(f.Name); f.NameSet && n != "" {
		// Both sides are normalised (lowercase letters, marks and digits), so a plain
		// substring test is the match: SQLite's LIKE compared case-insensitively and cost
		// several times more per row.
		where = append(where, "("+d.be.Contains("c.name_norm")+" OR "+d.be.Contains("c.origin_norm")+")")
		args = append(args, n, n)
		heightOrder = "+c.height"
	}
	out := CollectionPage{Collections: []Collection{}}
	if p.CountTotal {
		q := "SELECT COUNT(*) FROM nft_collection c"
		if len(where) > 0 {
			q += " WHERE " + strings.Join(where, " AND ")
		}
		if err := queryRow(ctx, c, q, args, &out.Total); err != nil {
			return CollectionPage{}, fmt.Errorf("count collections: %w", err)
		}
	}
	offset := p.Offset
	if p.After.Kind == CursorHeight {
		offset = 0
		where = append(where, map[bool]string{true: "c.height < ?", false: "c.height > ?"}[p.Desc])
		args = append(args, p.After.Value)
	}
	q := "SELECT " + collectionCols + " FROM nft_collection c"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY " + heightOrder + " " + dir(p.Desc) + ", c.addr " + dir(p.Desc) + " LIMIT ? OFFSET ?"
	r, err := c.Query(ctx, q, append(args, limitOf(p), offset)...)
	if err != nil {
		return CollectionPage{}, fmt.Errorf("collections: %w", err)
	}
	if out.Collections, err = scanCollections(r); err != nil {
		return CollectionPage{}, fmt.Errorf("collections: %w", err)
	}
	return out, nil
}

// Tokens implements NFTReader. The page's keys are picked on the nft table alone, on an index
// in the page's order (owner or collection first), and only the page's rows are joined to
// their collection.
func (d *DB) Tokens(ctx context.Context, f TokenFilter, p Page, after *TokenCursor) (TokenPage, error) {
	c := d.be.Reader()
	var where []string
	var args []any
	if f.Owner != nil {
		where = append(where, "n.owner = ?")
		args = append(args, nonNil(f.Owner))
	}
	if f.Collection != nil {
		where = append(where, "n.collection_addr = ?")
		args = append(args, nonNil(f.Collection))
	}
	if f.TokenIDSet {
		where = append(where, "n.token_id = ?")
		args = append(args, clean(f.TokenID))
	}
	out := TokenPage{Tokens: []Token{}}
	if p.CountTotal {
		if err := d.countTokens(ctx, c, f, where, args, &out.Total); err != nil {
			return TokenPage{}, err
		}
	}
	order := []string{"n.token_id", "n.height", "n.collection_addr"}
	switch {
	case f.OrderByHeight:
		order = []string{"n.height", "n.token_id", "n.collection_addr"}
	case f.Collection != nil:
		// In one collection a token id is unique, so it alone orders the page and the
		// primary key (collection_addr, token_id) yields it without a sort. With the height
		// as a tie-break PostgreSQL's generic plan of the prepared statement, which expects
		// an average collection's ~100 tokens, read the whole index of a collection holding
		// 95,000 and sorted it (107 ms p50 at 16 clients instead of ~1 ms).
		order = []string{"n.token_id"}
	}
	offset := p.Offset
	if after != nil {
		offset = 0
		vals := map[string]any{"n.token_id": clean(after.TokenID), "n.height": after.Height, "n.collection_addr": nonNil(after.Collection)}
		cols := order
		if after.Collection == nil && len(cols) == 3 {
			// Rollytics' key has no collection: continue after every row of that
			// (height, token_id), which is exact within one collection.
			cols = order[:2]
		}
		op := ">"
		if p.Desc {
			op = "<"
		}
		where = append(where, "("+strings.Join(cols, ", ")+") "+op+" ("+placeholders(len(cols))+")")
		for _, col := range cols {
			args = append(args, vals[col])
		}
	}
	if after == nil && offset >= rankBucketSize && !f.TokenIDSet && (f.Owner == nil) != (f.Collection == nil) {
		// A deep offset in one collection's or one owner's list: seek to the rank bucket it
		// falls in and skip only inside that bucket.
		l, scope := rankCollToken, f.Collection
		switch {
		case f.Owner != nil && f.OrderByHeight:
			l, scope = rankOwnHeight, f.Owner
		case f.Owner != nil:
			l, scope = rankOwnToken, f.Owner
		case f.OrderByHeight:
			l = rankCollHeight
		}
		w, a, rest, ok, err := l.rankSeek(ctx, c, []any{l.kind, nonNil(scope)}, offset, limitOf(p), p.Desc)
		if err != nil {
			return TokenPage{}, fmt.Errorf("tokens: rank buckets: %w", err)
		}
		if ok {
			where = append(where, w...)
			args = append(args, a...)
			offset = rest
		}
	}
	ord := make([]string, len(order))
	for i, col := range order {
		ord[i] = col + " " + dir(p.Desc)
	}
	orderSQL := strings.Join(ord, ", ")
	sub := "SELECT n.collection_addr, n.token_id FROM nft n"
	if len(where) > 0 {
		sub += " WHERE " + strings.Join(where, " AND ")
	}
	sub += " ORDER BY " + orderSQL + " LIMIT ? OFFSET ?"
	q := "SELECT n.collection_addr, n.token_id, n.object_addr, n.owner, n.uri, n.height, n.time_ns, c.name, c.origin_name " +
		"FROM (" + sub + ") k JOIN nft n ON n.collection_addr = k.collection_addr AND n.token_id = k.token_id " +
		"JOIN nft_collection c ON c.addr = n.collection_addr ORDER BY " + orderSQL
	r, err := c.Query(ctx, q, append(args, limitOf(p), offset)...)
	if err != nil {
		return TokenPage{}, fmt.Errorf("tokens: %w", err)
	}
	defer r.Close()
	for r.Next() {
		var t Token
		var tns int64
		if err := r.Scan(&t.Collection, &t.TokenID, &t.ObjectAddr, &t.Owner, &t.URI, &t.Height, &tns, &t.CollectionName, &t.CollectionOriginName); err != nil {
			return TokenPage{}, fmt.Errorf("tokens: %w", err)
		}
		t.Time = time.Unix(0, tns).UTC()
		out.Tokens = append(out.Tokens, t)
	}
	if err := r.Err(); err != nil {
		return TokenPage{}, fmt.Errorf("tokens: %w", err)
	}
	return out, nil
}

// countTokens is exact: a whole collection's count is its stored nft_count, anything else a
// COUNT on the filter's index.
func (d *DB) countTokens(ctx context.Context, c sqldb.Conn, f TokenFilter, where []string, args []any, total *int64) error {
	if f.Collection != nil && f.Owner == nil && !f.TokenIDSet {
		err := queryRow(ctx, c, "SELECT nft_count FROM nft_collection WHERE addr = ?", []any{nonNil(f.Collection)}, total)
		if errors.Is(err, ErrNotFound) {
			*total = 0
			return nil
		}
		if err != nil {
			return fmt.Errorf("count tokens: %w", err)
		}
		return nil
	}
	q := "SELECT COUNT(*) FROM nft n"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if err := queryRow(ctx, c, q, args, total); err != nil {
		return fmt.Errorf("count tokens: %w", err)
	}
	return nil
}

// NFTTxs implements NFTReader. A Move token's history is the txs touching its object address
// (tx_accounts), as in rollytics; an EVM or Wasm token's is its nft_txs edges, whose dense rank
// makes an offset a key and the total the dictionary's counter.
func (d *DB) NFTTxs(ctx context.Context, collection []byte, tokenID string, p Page) (TxPage, error) {
	c := d.be.Reader()
	empty := TxPage{Txs: []TxRecord{}}
	var nftID int64
	var obj []byte
	err := queryRow(ctx, c, "SELECT nft_id, object_addr FROM nft WHERE collection_addr = ? AND token_id = ?",
		[]any{nonNil(collection), clean(tokenID)}, &nftID, &obj)
	if errors.Is(err, ErrNotFound) {
		return empty, nil
	}
	if err != nil {
		return TxPage{}, fmt.Errorf("nft txs: %w", err)
	}
	if len(obj) > 0 {
		return d.Txs(ctx, TxFilter{Account: obj}, p)
	}
	var n int64
	if err := queryRow(ctx, c, "SELECT tx_count FROM nft_dict WHERE id = ?", []any{nftID}, &n); err != nil {
		return TxPage{}, fmt.Errorf("nft txs: %w", err)
	}
	out := TxPage{Txs: []TxRecord{}}
	if p.CountTotal {
		out.Total = n
	}
	var sub string
	var args []any
	switch p.After.Kind {
	case CursorSequence, CursorHeight:
		bound := p.After.Value
		if p.After.Kind == CursorHeight {
			// After a height: past the last (ascending) or before the first (descending) tx
			// of that block.
			col := map[bool]string{true: "first_sequence", false: "last_sequence"}[p.Desc]
			if err := queryRow(ctx, c, "SELECT "+col+" FROM block WHERE height = ?", []any{bound}, &bound); err != nil {
				if !errors.Is(err, ErrNotFound) {
					return TxPage{}, fmt.Errorf("resolve height cursor: %w", err)
				}
				bound = map[bool]int64{true: 0, false: 1<<63 - 1}[p.Desc]
			}
		}
		op := map[bool]string{true: "<", false: ">"}[p.Desc]
		sub = "SELECT e.sequence FROM nft_txs e WHERE e.nft_id = ? AND e.sequence " + op + " ? ORDER BY e.sequence " + dir(p.Desc) + " LIMIT ?"
		args = []any{nftID, bound, limitOf(p)}
	default:
		if p.Offset >= n {
			return out, nil
		}
		a, b := int64(1), n
		if p.Desc {
			b -= p.Offset
		} else {
			a += p.Offset
		}
		sub = "SELECT e.sequence FROM nft_txs e WHERE e.nft_id = ? AND e.ord BETWEEN ? AND ? ORDER BY e.ord " + dir(p.Desc) + " LIMIT ?"
		args = []any{nftID, a, b, limitOf(p)}
	}
	r, err := c.Query(ctx, "SELECT t.sequence, t.height, t.data FROM tx t JOIN ("+sub+") s ON t.sequence = s.sequence ORDER BY t.sequence "+dir(p.Desc), args...)
	if err != nil {
		return TxPage{}, fmt.Errorf("nft txs: %w", err)
	}
	if out.Txs, err = scanTxs(r, limitOf(p)); err != nil {
		return TxPage{}, fmt.Errorf("nft txs: %w", err)
	}
	return out, nil
}

// NotNFTContracts implements NFTReader.
func (d *DB) NotNFTContracts(ctx context.Context) ([][]byte, error) {
	r, err := d.be.Reader().Query(ctx, "SELECT addr FROM nft_not_collection ORDER BY addr")
	if err != nil {
		return nil, fmt.Errorf("not-an-NFT contracts: %w", err)
	}
	defer r.Close()
	var out [][]byte
	for r.Next() {
		var b []byte
		if err := r.Scan(&b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, r.Err()
}
