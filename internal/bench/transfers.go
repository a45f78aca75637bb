package bench

import (
	"context"
	"encoding/base64"
	"net/url"
	"strconv"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// transferTargets are the transfer lists of the synthetic account: its first page (total from
// the per-account counts), one direction, a page 900,000 deep by cursor (when it has that
// many), and the first page of its denom.
func transferTargets(ctx context.Context, db *store.DB) ([]Target, error) {
	acc := storetest.TransferAccount()
	newest, err := db.Transfers(ctx, store.TransferFilter{Account: acc}, store.Page{Limit: 1, Desc: true, CountTotal: true})
	if err != nil {
		return nil, err
	}
	p := "/indexer/transfer/v1/transfers/by_account/" + address.Hex(acc) + "?pagination.limit=20"
	t := []Target{
		{"transfers_account", p},
		{"transfers_account_in", p + "&direction=in"},
		{"transfers_denom", "/indexer/transfer/v1/transfers/by_denom/" + storetest.TransferDenom + "?pagination.limit=20"},
	}
	if newest.Total >= deepOffset+20 {
		// The row deepOffset-1 from the newest: the cursor past it skips deepOffset rows.
		at, err := db.Transfers(ctx, store.TransferFilter{Account: acc}, store.Page{Limit: 1, Desc: true, Offset: deepOffset - 1})
		if err != nil {
			return nil, err
		}
		if len(at.Transfers) == 1 {
			cur := base64.StdEncoding.EncodeToString([]byte(`{"sequence":` + strconv.FormatInt(at.Transfers[0].ID, 10) + `}`))
			t = append(t, Target{"transfers_account_900000", p + "&pagination.key=" + url.QueryEscape(cur)})
		}
	}
	return t, nil
}
