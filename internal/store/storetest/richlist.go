package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// RichListDenom is the denom FillRichList writes: a lowercase 0x ERC-20 address, as the EVM
// rich list stores denoms.
func RichListDenom() string { return fmt.Sprintf("0x%x", sha("rollgate-synthetic-erc20")[:20]) }

// Holder is FillRichList's i-th holder (20 bytes), distinct from Fill's accounts.
func Holder(i int) []byte { return sha(fmt.Sprintf("rollgate-synthetic-holder-%d", i))[:20] }

// HolderAmount is the balance FillRichList gives holder i: spread over twelve decimal digits
// (so pages hold distinct amounts), with every 50th holder at one shared amount so the list
// also has long runs of ties ordered by account.
func HolderAmount(i int) *big.Int {
	if i%50 == 0 {
		return big.NewInt(1_000_000)
	}
	return new(big.Int).SetUint64(uint64(i)*2654435761%1_000_000_000_000 + 1)
}

// FillRichList appends empty blocks after the store's indexed height that set the balances of
// holders from..to-1 of RichListDenom (5,000 per block, 20 blocks per write), the way the
// genesis bootstrap sets balances. Deterministic; for `rollgate bench api` on the rich list.
func FillRichList(ctx context.Context, w store.Writer, from, to int) error {
	h, err := w.IndexedHeight(ctx)
	if err != nil {
		return err
	}
	chain := chainID(ctx, w)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	denom := RichListDenom()
	const perBlock = 5000
	var batch []store.BlockBundle
	for i := from; i < to; {
		h++
		rl := &store.RichListChanges{}
		for ; i < to && len(rl.Sets) < perBlock; i++ {
			rl.Sets = append(rl.Sets, store.BalanceSet{Denom: denom, Account: Holder(i), Amount: HolderAmount(i)})
		}
		batch = append(batch, store.BlockBundle{Block: store.Block{ChainID: chain, Height: h, Hash: sha(fmt.Sprintf("richlist-block-%d", h)),
			Time: t0.Add(time.Duration(h) * 500 * time.Millisecond), TotalFee: json.RawMessage(`[]`)}, Extensions: []store.ExtensionRows{rl}})
		if len(batch) == 20 || i == to {
			if err := w.WriteBlocks(ctx, batch); err != nil {
				return fmt.Errorf("fill rich list at height %d: %w", h, err)
			}
			batch = batch[:0]
		}
	}
	return nil
}
