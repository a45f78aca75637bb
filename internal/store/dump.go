package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/sqldb"
)

// column kinds of the dump: each is scanned into a Go type both drivers fill the same way,
// so SQLite and PostgreSQL dumps of equal data are equal bytes.
const (
	kInt     = 'i'
	kNullInt = 'I'
	kText    = 's'
	kNullTxt = 'S'
	kBytes   = 'b'
	kBool    = 'B'
)

type dumpTable struct {
	name, order string
	cols        []string
	kinds       string
}

var dumpTables = []dumpTable{
	{"schema_version", "version", []string{"version", "name"}, "is"},
	{"indexed_height", "id", []string{"id", "height", "first_height", "last_sequence"}, "iiii"},
	{"chain_identity", "id", []string{"id", "chain_id", "first_height", "first_hash", "initial_height", "initial_hash"}, "isibIb"},
	{"block", "height", []string{"height", "chain_id", "hash", "time_ns", "block_time_ms", "proposer", "gas_used", "gas_wanted", "tx_count", "total_fee", "first_sequence", "last_sequence"}, "isbiiSiiisii"},
	{"account_dict", "id", []string{"id", "account", "tx_count", "signer_count"}, "ibii"},
	{"msg_type_dict", "id", []string{"id", "msg_type", "tx_count"}, "isi"},
	{"tx", "sequence", []string{"sequence", "hash", "height", "tx_index", "signer_id", "data"}, "ibiiIs"},
	{"tx_accounts", "account_id, sequence", []string{"account_id", "sequence", "signer", "ord", "signer_ord"}, "iiBiI"},
	{"tx_msg_types", "msg_type_id, sequence", []string{"msg_type_id", "sequence", "ord"}, "iii"},
	{"nft_collection", "addr", []string{"addr", "height", "time_ns", "name", "origin_name", "name_norm", "origin_norm", "creator", "nft_count"}, "biissssbi"},
	{"nft_dict", "id", []string{"id", "collection_addr", "token_id", "tx_count"}, "ibsi"},
	{"nft", "collection_addr, token_id", []string{"collection_addr", "token_id", "nft_id", "object_addr", "owner", "uri", "height", "time_ns"}, "bsibbsii"},
	{"nft_txs", "nft_id, sequence", []string{"nft_id", "sequence", "ord"}, "iii"},
	{"nft_not_collection", "addr", []string{"addr", "height"}, "bi"},
	{"nft_rank_token", "kind, scope, token_id, height, coll", []string{"kind", "scope", "token_id", "height", "coll", "n"}, "ibsibi"},
	{"nft_rank_height", "kind, scope, height, token_id, coll", []string{"kind", "scope", "height", "token_id", "coll", "n"}, "ibisbi"},
	{"nft_owner_collection", "owner, collection_addr", []string{"owner", "collection_addr", "n"}, "bbi"},
}

// Dump implements Store: one "## table" header per table, then one tab-separated line per
// row in primary-key order (bytes as hex, text quoted Go-style, NULL as \N).
func (d *DB) Dump(ctx context.Context, w io.Writer) error {
	bw := bufio.NewWriter(w)
	c := d.be.Reader()
	for _, t := range dumpTables {
		fmt.Fprintf(bw, "## %s (%s)\n", t.name, strings.Join(t.cols, ", "))
		r, err := c.Query(ctx, "SELECT "+strings.Join(t.cols, ", ")+" FROM "+t.name+" ORDER BY "+t.order)
		if err != nil {
			return fmt.Errorf("dump %s: %w", t.name, err)
		}
		if err := dumpRows(bw, r, t.kinds); err != nil {
			return fmt.Errorf("dump %s: %w", t.name, err)
		}
	}
	return bw.Flush()
}

func dumpRows(w *bufio.Writer, r sqldb.Rows, kinds string) error {
	defer r.Close()
	dest := make([]any, len(kinds))
	for i, k := range kinds {
		switch k {
		case kInt:
			dest[i] = new(int64)
		case kNullInt:
			dest[i] = new(sql.NullInt64)
		case kText:
			dest[i] = new(string)
		case kNullTxt:
			dest[i] = new(sql.NullString)
		case kBytes:
			dest[i] = new([]byte)
		case kBool:
			dest[i] = new(bool)
		}
	}
	for r.Next() {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		for i, v := range dest {
			if i > 0 {
				w.WriteByte('\t')
			}
			switch v := v.(type) {
			case *int64:
				w.WriteString(strconv.FormatInt(*v, 10))
			case *sql.NullInt64:
				if v.Valid {
					w.WriteString(strconv.FormatInt(v.Int64, 10))
				} else {
					w.WriteString(`\N`)
				}
			case *string:
				w.WriteString(strconv.Quote(*v))
			case *sql.NullString:
				if v.Valid {
					w.WriteString(strconv.Quote(v.String))
				} else {
					w.WriteString(`\N`)
				}
			case *[]byte:
				w.WriteString(hex.EncodeToString(*v))
			case *bool:
				w.WriteString(strconv.FormatBool(*v))
			}
		}
		w.WriteByte('\n')
	}
	return r.Err()
}
