package store

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"
)

// SearchReader is what the search route reads beyond Reader and EVMReader: the few point
// lookups that say whether a string names something the store holds. Each is one seek on a
// primary key or an index; none scans a table.
type SearchReader interface {
	// CollectionsByNamePrefix returns up to limit collections whose normalised name (or L1
	// class name) starts with the normalised prefix, oldest first (migration 0010). A prefix
	// that normalises to "" matches nothing.
	CollectionsByNamePrefix(ctx context.Context, prefix string, limit int) ([]Collection, error)
	// AccountActivity returns how many Cosmos and EVM txs the store links to the account (0, 0
	// for an address never seen).
	AccountActivity(ctx context.Context, addr []byte) (txs, evmTxs int64, err error)
	// RichListDenom resolves a denom as the rich list names it (the stored denom, or an alias
	// such as an EVM bank denom) and returns its number of holders; ok is false when the rich
	// list keeps no such denom.
	RichListDenom(ctx context.Context, denom string) (stored string, holders int64, ok bool, err error)
	// TokenByObject returns the collection and token id of the live Move NFT whose object
	// has the address (index nft_object); ok is false when none does.
	TokenByObject(ctx context.Context, object []byte) (collection []byte, tokenID string, ok bool, err error)
}

var _ SearchReader = (*DB)(nil)

// CollectionsByNamePrefix implements SearchReader: one range of nft_collection_name_norm and
// one of nft_collection_origin_norm, merged in (height, addr) order.
func (d *DB) CollectionsByNamePrefix(ctx context.Context, prefix string, limit int) ([]Collection, error) {
	p := NormalizeCollectionName(prefix)
	if p == "" || limit <= 0 {
		return []Collection{}, nil
	}
	hi, bounded := prefixUpper(p)
	c := d.be.Reader()
	var out []Collection
	seen := map[string]bool{}
	for _, col := range []string{"c.name_norm", "c.origin_norm"} {
		q := "SELECT " + collectionCols + " FROM nft_collection c WHERE " + col + " >= ?"
		args := []any{p}
		if bounded {
			q += " AND " + col + " < ?"
			args = append(args, hi)
		}
		q += fmt.Sprintf(" ORDER BY %s, c.height, c.addr LIMIT %d", col, limit)
		r, err := c.Query(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("collections by name prefix: %w", err)
		}
		cs, err := scanCollections(r)
		if err != nil {
			return nil, fmt.Errorf("collections by name prefix: %w", err)
		}
		for _, x := range cs {
			if !seen[string(x.Addr)] {
				seen[string(x.Addr)] = true
				out = append(out, x)
			}
		}
	}
	// An exact name first, then the oldest: what a user typing a name most likely means.
	sortCollections(out, p)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// sortCollections orders by (exact normalised name first, height, addr): insertion sort, the
// list holds at most 2×limit entries.
func sortCollections(cs []Collection, p string) {
	less := func(a, b Collection) bool {
		ea, eb := NormalizeCollectionName(a.Name) == p, NormalizeCollectionName(b.Name) == p
		if ea != eb {
			return ea
		}
		if a.Height != b.Height {
			return a.Height < b.Height
		}
		return string(a.Addr) < string(b.Addr)
	}
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && less(cs[j], cs[j-1]); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// prefixUpper is the least string greater than every string starting with p: p with its last
// rune incremented. Normalised names hold letters, marks and digits only, so the last rune is
// never the highest code point in practice; then bounded is false and only >= applies.
func prefixUpper(p string) (string, bool) {
	r, size := utf8.DecodeLastRuneInString(p)
	if r == utf8.MaxRune || r == utf8.RuneError {
		return "", false
	}
	next := r + 1
	if next >= 0xD800 && next <= 0xDFFF { // surrogates are not valid in UTF-8
		next = 0xE000
	}
	return p[:len(p)-size] + string(next), true
}

// AccountActivity implements SearchReader: one account_dict row.
func (d *DB) AccountActivity(ctx context.Context, addr []byte) (int64, int64, error) {
	var n, evm int64
	err := queryRow(ctx, d.be.Reader(), "SELECT tx_count, evm_tx_count FROM account_dict WHERE account = ?", []any{nonNil(addr)}, &n, &evm)
	if errors.Is(err, ErrNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("account activity: %w", err)
	}
	return n, evm, nil
}

// RichListDenom implements SearchReader: the denom's counter row, else its alias.
func (d *DB) RichListDenom(ctx context.Context, denom string) (string, int64, bool, error) {
	c := d.be.Reader()
	for _, name := range []string{denom, ""} {
		stored := name
		if name == "" {
			err := queryRow(ctx, c, "SELECT denom FROM rich_list_alias WHERE alias = ?", []any{lower(denom)}, &stored)
			if errors.Is(err, ErrNotFound) {
				return "", 0, false, nil
			}
			if err != nil {
				return "", 0, false, fmt.Errorf("rich list alias: %w", err)
			}
		}
		var n int64
		err := queryRow(ctx, c, "SELECT holders FROM rich_list_denom WHERE denom = ?", []any{stored}, &n)
		if err == nil {
			return stored, n, true, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return "", 0, false, fmt.Errorf("rich list denom: %w", err)
		}
	}
	return "", 0, false, nil
}

// TokenByObject implements SearchReader.
func (d *DB) TokenByObject(ctx context.Context, object []byte) ([]byte, string, bool, error) {
	if len(object) == 0 {
		return nil, "", false, nil
	}
	var coll []byte
	var id string
	err := queryRow(ctx, d.be.Reader(), "SELECT collection_addr, token_id FROM nft WHERE object_addr = ? LIMIT 1", []any{object}, &coll, &id)
	if errors.Is(err, ErrNotFound) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, fmt.Errorf("token by object: %w", err)
	}
	return coll, id, true, nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
