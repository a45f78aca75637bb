package store

// Dictionaries: account_dict and msg_type_dict map keys (raw addresses, type URLs) to dense
// ids and carry the per-key counters that rank the edge rows (tx_accounts, tx_msg_types).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rollgate/rollgate/internal/sqldb"
)

const dictChunk = 200

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
func resolveDict[K string | []byte](ctx context.Context, tx sqldb.Tx, d dict, keys []K, str func(K) string, out map[string]*dictEntry) error {
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

func scanDict[K string | []byte](ctx context.Context, c sqldb.Conn, q string, args []any, str func(K) string, out map[string]*dictEntry) error {
	r, err := c.Query(ctx, q, args...)
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
func updateCounts(ctx context.Context, tx sqldb.Tx, d dict, entries map[string]*dictEntry) error {
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
		if err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("update %s counts: %w", d.table, err)
		}
	}
	return nil
}

func lookupAccount(ctx context.Context, c sqldb.Conn, addr []byte) (*dictEntry, error) {
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

// lookupMsgTypes returns the entries of the known types among types, in id order. A type URL
// may carry its leading '/', as in a tx's "@type" (users copy it from there); the dictionary
// holds it without, as WriteBlocks stores it.
func lookupMsgTypes(ctx context.Context, c sqldb.Conn, types []string) ([]dictEntry, error) {
	var keys []any
	seen := map[string]bool{}
	for _, m := range types {
		m = strings.TrimPrefix(m, "/")
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
		r, err := c.Query(ctx, "SELECT id, tx_count FROM msg_type_dict WHERE msg_type IN ("+placeholders(len(chunk))+")", chunk...)
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
