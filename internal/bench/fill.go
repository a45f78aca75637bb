package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// topUp is the set-up step of one synthetic data set: when the store has fewer than want, it
// prints the filling line (format and args), runs fill and prints how long "<what> filled"
// took; when the store has enough, it does nothing, so a second run reuses the data.
func topUp(out io.Writer, have, want int64, what string, fill func() error, format string, args ...any) error {
	if have >= want {
		return nil
	}
	fmt.Fprintf(out, format+"\n", args...)
	t0 := time.Now()
	if err := fill(); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s filled in %v\n", what, time.Since(t0).Truncate(time.Millisecond))
	return nil
}

// fillNFTs tops the store up to cfg.NFTTokens live tokens (storetest.FillNFTs).
func fillNFTs(ctx context.Context, db *store.DB, cfg APIConfig, out io.Writer) error {
	have, err := db.Tokens(ctx, store.TokenFilter{}, store.Page{Limit: 1, CountTotal: true}, nil)
	if err != nil {
		return err
	}
	return topUp(out, have.Total, int64(cfg.NFTTokens), "NFTs", func() error {
		return storetest.FillNFTs(ctx, db, storetest.NFTOptions{Tokens: cfg.NFTTokens, Collections: cfg.NFTCollections})
	}, "filling: the store holds %d NFTs, adding %d in %d collections (storetest.FillNFTs)", have.Total, cfg.NFTTokens, cfg.NFTCollections)
}

// fillTransfers tops storetest.TransferAccount up to cfg.Transfers transfers
// (storetest.FillTransfers).
func fillTransfers(ctx context.Context, db *store.DB, cfg APIConfig, out io.Writer) error {
	have, err := db.Transfers(ctx, store.TransferFilter{Account: storetest.TransferAccount()}, store.Page{Limit: 1, CountTotal: true})
	if err != nil {
		return err
	}
	return topUp(out, have.Total, int64(cfg.Transfers), "transfers", func() error {
		return storetest.FillTransfers(ctx, db, int(have.Total), cfg.Transfers)
	}, "filling: the transfer account has %d transfers, adding %d (storetest.FillTransfers)", have.Total, int64(cfg.Transfers)-have.Total)
}
