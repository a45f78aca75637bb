package store

// Rank buckets of the token lists (migration 0005; the mechanism is rank.go's): one
// collection's or one owner's live tokens, in token_id or height order.

import "context"

// nftRankList is one kind of token list: kind 0 is a collection's, 1 an owner's.
type nftRankList struct {
	rankList
	kind int
}

func nftRank(table string, kind int, byHeight bool, seek []int) nftRankList {
	scope := "n.collection_addr"
	if kind == 1 {
		scope = "n.owner"
	}
	l := rankList{table: table, scope: []string{"kind", "scope"}, src: "nft n", srcScope: []string{"", scope},
		cols: []string{"token_id", "height", "coll"}, srcCols: []string{"n.token_id", "n.height", "n.collection_addr"}, types: "sib", seek: seek}
	if byHeight {
		l.cols, l.srcCols, l.types = []string{"height", "token_id", "coll"}, []string{"n.height", "n.token_id", "n.collection_addr"}, "isb"
	}
	return nftRankList{l, kind}
}

// The seek columns are those of the nft index of the list after its scope: in one collection
// a token_id (or height, token_id) is unique already.
var (
	rankCollToken  = nftRank("nft_rank_token", 0, false, []int{0})
	rankCollHeight = nftRank("nft_rank_height", 0, true, []int{0, 1})
	rankOwnToken   = nftRank("nft_rank_token", 1, false, []int{0, 1, 2})
	rankOwnHeight  = nftRank("nft_rank_height", 1, true, []int{0, 1, 2})
	rankLists      = []nftRankList{rankCollToken, rankCollHeight, rankOwnToken, rankOwnHeight}
)

// rankKey is one live token as the rank buckets see it.
type rankKey struct {
	coll, owner []byte
	tokenID     string
	height      int64
}

// scopeOf names the list of l that token k is in (the bucket table's kind and scope).
func (l nftRankList) scopeOf(k rankKey) []any {
	if l.kind == 0 {
		return []any{l.kind, nonNil(k.coll)}
	}
	return []any{l.kind, nonNil(k.owner)}
}

// vals returns the key's values in the order of l.cols.
func (l nftRankList) vals(k rankKey) []any {
	if l.cols[0] == "height" {
		return []any{k.height, k.tokenID, nonNil(k.coll)}
	}
	return []any{k.tokenID, k.height, nonNil(k.coll)}
}

// addNFT counts a token that is now in the nft table in its four lists.
func (rc *rankCache) addNFT(ctx context.Context, k rankKey) error {
	for _, l := range rankLists {
		if err := rc.add(ctx, l.rankList, l.scopeOf(k), l.vals(k), true); err != nil {
			return err
		}
	}
	return nil
}

// delNFT uncounts a token that left the nft table or changed its key.
func (rc *rankCache) delNFT(ctx context.Context, k rankKey) error {
	for _, l := range rankLists {
		if err := rc.del(ctx, l.rankList, l.scopeOf(k), l.vals(k)); err != nil {
			return err
		}
	}
	return nil
}
