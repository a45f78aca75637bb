package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// deepOffset is how deep the far pages of the rich list and the EVM tx list are (the deep-page
// target: a page 900,000 deep on ≥ 1,000,000 rows).
const deepOffset = 900_000

// fillRichList tops the synthetic denom up to cfg.RichListHolders holders
// (storetest.FillRichList).
func fillRichList(ctx context.Context, db *store.DB, cfg APIConfig, out io.Writer) error {
	have, err := db.Holders(ctx, storetest.RichListDenom(), store.Page{Limit: 1, CountTotal: true})
	if err != nil {
		return err
	}
	if have.Total >= int64(cfg.RichListHolders) {
		return nil
	}
	fmt.Fprintf(out, "filling: %s has %d holders, adding %d (storetest.FillRichList)\n", storetest.RichListDenom(), have.Total, int64(cfg.RichListHolders)-have.Total)
	t0 := time.Now()
	if err := storetest.FillRichList(ctx, db, int(have.Total), cfg.RichListHolders); err != nil {
		return err
	}
	fmt.Fprintf(out, "rich list filled in %v\n", time.Since(t0).Truncate(time.Millisecond))
	return nil
}

// richListTargets are the first page of the synthetic denom and a page 900,000 deep (when it
// has that many holders).
func richListTargets(holders int) []Target {
	p := "/indexer/richlist/v1/" + storetest.RichListDenom() + "?pagination.limit=20"
	t := []Target{{Name: "richlist", Path: p}}
	if holders >= deepOffset+20 {
		t = append(t, Target{Name: "richlist_offset_900000", Path: p + "&pagination.offset=" + strconv.Itoa(deepOffset)})
	}
	return t
}

// fillEVM tops the store up to cfg.EVMTxs EVM txs (storetest.FillEVM), with an internal tx each.
func fillEVM(ctx context.Context, db *store.DB, cfg APIConfig, out io.Writer) error {
	have, err := db.EVMTxs(ctx, store.EVMTxFilter{}, store.Page{Limit: 1, CountTotal: true})
	if err != nil {
		return err
	}
	if have.Total >= int64(cfg.EVMTxs) {
		return nil
	}
	n := cfg.EVMTxs - int(have.Total)
	fmt.Fprintf(out, "filling: the store holds %d EVM txs, adding %d with one internal tx each (storetest.FillEVM)\n", have.Total, n)
	t0 := time.Now()
	if err := storetest.FillEVM(ctx, db, have.Total, n, storetest.EVMOptions{Internal: true}); err != nil {
		return err
	}
	fmt.Fprintf(out, "EVM txs filled in %v\n", time.Since(t0).Truncate(time.Millisecond))
	return nil
}

// evmTargets are the EVM tx and internal tx routes: first pages, an account's and a height's
// txs, a tx by hash, and the list 900,000 deep (when the store holds that many).
func evmTargets(ctx context.Context, r store.EVMReader) ([]Target, error) {
	newest, err := r.EVMTxs(ctx, store.EVMTxFilter{}, store.Page{Limit: 1, Desc: true, CountTotal: true})
	if err != nil {
		return nil, err
	}
	if len(newest.Txs) == 0 {
		return nil, fmt.Errorf("the store holds no EVM tx")
	}
	var receipt struct {
		From string `json:"from"`
		Hash string `json:"transactionHash"`
	}
	if err := json.Unmarshal(newest.Txs[0].JSON, &receipt); err != nil {
		return nil, fmt.Errorf("the newest EVM tx is not a receipt: %w", err)
	}
	if receipt.From == "" || receipt.Hash == "" {
		return nil, fmt.Errorf("the newest EVM tx names no from or hash: %.200s", newest.Txs[0].JSON)
	}
	// The newest receipt's sender, an account with txs either way (synthetic or captured).
	acc, h, hash := receipt.From, strconv.FormatInt(newest.Txs[0].Height, 10), strings.TrimPrefix(receipt.Hash, "0x")
	t := []Target{
		{Name: "evm_txs", Path: "/indexer/tx/v1/evm-txs?pagination.limit=20"},
		{Name: "evm_txs_by_account", Path: "/indexer/tx/v1/evm-txs/by_account/" + acc + "?pagination.limit=20"},
		{Name: "evm_txs_by_height", Path: "/indexer/tx/v1/evm-txs/by_height/" + h},
		{Name: "evm_tx_by_hash", Path: "/indexer/tx/v1/evm-txs/" + hash},
	}
	if newest.Total >= deepOffset+20 {
		t = append(t, Target{Name: "evm_txs_offset_900000", Path: "/indexer/tx/v1/evm-txs?pagination.limit=20&pagination.offset=" + strconv.Itoa(deepOffset)})
	}
	t = append(t,
		Target{Name: "evm_internal_txs", Path: "/indexer/tx/v1/evm-internal-txs?pagination.limit=20"},
		Target{Name: "evm_internal_by_account", Path: "/indexer/tx/v1/evm-internal-txs/by_account/" + acc + "?pagination.limit=20"},
		Target{Name: "evm_internal_by_height", Path: "/indexer/tx/v1/evm-internal-txs/by_height/" + h},
		Target{Name: "evm_internal_by_hash", Path: "/indexer/tx/v1/evm-internal-txs/" + hash},
	)
	return t, nil
}
