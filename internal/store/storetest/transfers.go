package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// TransferAccount is the account every transfer FillTransfers writes moves to or from.
func TransferAccount() []byte { return sha("rollgate-synthetic-transfer-account")[:20] }

// TransferDenom is the denom of FillTransfers' transfers.
const TransferDenom = "utransfer"

// FillTransfers appends blocks after the store's indexed height holding transfers from..to-1
// of TransferAccount (1,000 per block, 20 blocks per write): even ones out to, odd ones in from
// one of 50 counterparts, in TransferDenom. The blocks carry no tx (the rows are the block's
// own movements, with an empty tx hash), so the tx lists and the targets picked from the
// newest tx stay what the other fills made. Deterministic; for `rollgate bench api` on the
// transfer lists.
func FillTransfers(ctx context.Context, w store.Writer, from, to int) error {
	h, err := w.IndexedHeight(ctx)
	if err != nil {
		return err
	}
	chain := chainID(ctx, w)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	acc := TransferAccount()
	var others [50][]byte
	for i := range others {
		others[i] = sha("rollgate-synthetic-transfer-counterpart-" + strconv.Itoa(i))[:20]
	}
	const perBlock = 1000
	var batch []store.BlockBundle
	for i := from; i < to; {
		h++
		rows := make(store.TransferRows, 0, perBlock)
		for ; i < to && len(rows) < perBlock; i++ {
			t := store.Transfer{TxIndex: -1, MsgIndex: -1, Kind: store.TransferSend, From: acc, To: others[i%50], Denom: TransferDenom,
				Amount: strconv.Itoa(1000 + i%997)}
			if i%2 == 1 {
				t.From, t.To = t.To, t.From
			}
			rows = append(rows, t)
		}
		batch = append(batch, store.BlockBundle{Block: store.Block{ChainID: chain, Height: h, Hash: sha(fmt.Sprintf("transfer-block-%d", h)),
			Time: t0.Add(time.Duration(h) * 500 * time.Millisecond), TotalFee: json.RawMessage(`[]`)}, Extensions: []store.ExtensionRows{rows}})
		if len(batch) == 20 || i == to {
			if err := w.WriteBlocks(ctx, batch); err != nil {
				return fmt.Errorf("fill transfers at height %d: %w", h, err)
			}
			batch = batch[:0]
		}
	}
	return nil
}
