package bench

import (
	"context"
	"fmt"
	"net/url"
	"strconv"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// nftTargets are the seven NFT routes on the biggest collection and its busiest owner, with
// by_name, both orders and a page 90,000 tokens deep (when the collection is that big).
func nftTargets(ctx context.Context, r store.Reader, prefix string) ([]Target, error) {
	page, err := r.Collections(ctx, store.CollectionFilter{}, store.Page{Limit: 1000, CountTotal: true})
	if err != nil {
		return nil, err
	}
	var big store.Collection
	for _, c := range page.Collections {
		if c.NFTCount > big.NFTCount {
			big = c
		}
	}
	if big.NFTCount == 0 {
		return nil, fmt.Errorf("the store holds no NFT")
	}
	toks, err := r.Tokens(ctx, store.TokenFilter{Collection: big.Addr}, store.Page{Limit: 1, Desc: true}, nil)
	if err != nil || len(toks.Tokens) == 0 {
		return nil, fmt.Errorf("tokens of the biggest collection: %w", err)
	}
	tk := toks.Tokens[0]
	owner, err := address.Bech32(prefix, tk.Owner)
	if err != nil {
		return nil, err
	}
	coll := address.Hex(big.Addr)
	t := []Target{
		{Name: "nft_collections", Path: "/indexer/nft/v1/collections?pagination.limit=20"},
		{Name: "nft_collections_by_account", Path: "/indexer/nft/v1/collections/by_account/" + owner + "?pagination.limit=20"},
		{Name: "nft_collections_by_name", Path: "/indexer/nft/v1/collections/by_name/" + url.PathEscape("collection nº 77") + "?pagination.limit=20"},
		{Name: "nft_collection", Path: "/indexer/nft/v1/collections/" + coll},
		{Name: "nft_tokens_by_account", Path: "/indexer/nft/v1/tokens/by_account/" + owner + "?pagination.limit=20"},
		{Name: "nft_tokens_by_account_height", Path: "/indexer/nft/v1/tokens/by_account/" + owner + "?pagination.limit=20&order_by=height"},
		{Name: "nft_tokens_by_collection", Path: "/indexer/nft/v1/tokens/by_collection/" + coll + "?pagination.limit=20"},
		{Name: "nft_tokens_by_collection_height", Path: "/indexer/nft/v1/tokens/by_collection/" + coll + "?pagination.limit=20&order_by=height"},
		{Name: "nft_txs", Path: "/indexer/nft/v1/txs/" + coll + "/" + url.PathEscape(tk.TokenID)},
	}
	const deep = 90_000
	if big.NFTCount >= deep+20 {
		t = append(t, Target{Name: "nft_tokens_offset_90000", Path: "/indexer/nft/v1/tokens/by_collection/" + coll +
			"?pagination.limit=20&pagination.offset=" + strconv.Itoa(deep)})
	}
	return t, nil
}
