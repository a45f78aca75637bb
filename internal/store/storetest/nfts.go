package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/store"
)

// NFTOptions shapes the NFT data FillNFTs writes.
type NFTOptions struct {
	Tokens      int // live tokens in all, default 100,000
	Collections int // collections, default 1,000
	// BigShare is the share of the tokens minted into collection 0, so one collection is deep
	// enough for far pages (default 0.95: 95,000 of 100,000).
	BigShare float64
	Accounts int // owners are Account(i % Accounts), default 1000
}

// NFTCollection is the address of FillNFTs' i-th collection (32 bytes).
func NFTCollection(i int) []byte {
	h := sha256.Sum256([]byte("rollgate-synthetic-collection-" + strconv.Itoa(i)))
	return h[:]
}

// NFTCollectionName is the name of FillNFTs' i-th collection: words with spaces and a
// non-ASCII letter, so by_name has something to normalise.
func NFTCollectionName(i int) string { return fmt.Sprintf("Bench Collection Nº %d", i) }

// FillNFTs appends blocks after the store's indexed height that create o.Collections
// collections and mint o.Tokens tokens, one tx per block linking its tokens (so token
// histories exist), every 10th token moved once to another owner. Deterministic; for
// `rollgate bench api` on NFT routes.
func FillNFTs(ctx context.Context, w store.Writer, o NFTOptions) error {
	if o.Tokens <= 0 {
		o.Tokens = 100_000
	}
	if o.Collections <= 0 {
		o.Collections = 1000
	}
	if o.BigShare <= 0 || o.BigShare >= 1 {
		o.BigShare = 0.95
	}
	if o.Accounts <= 0 {
		o.Accounts = 1000
	}
	h, err := w.IndexedHeight(ctx)
	if err != nil {
		return err
	}
	chain := chainID(ctx, w)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	big := int(float64(o.Tokens) * o.BigShare)
	rest := o.Tokens - big
	// Token k of collection c; collection 0 takes `big` tokens, the others share `rest`.
	type mint struct {
		coll, n int
	}
	var plan []mint
	plan = append(plan, mint{0, big})
	for c := 1; c < o.Collections; c++ {
		n := rest / (o.Collections - 1)
		if c <= rest%(o.Collections-1) {
			n++
		}
		plan = append(plan, mint{c, n})
	}
	const perBlock = 500
	var batch []store.BlockBundle
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := w.WriteBlocks(ctx, batch)
		batch = batch[:0]
		return err
	}
	token := 0
	for _, m := range plan {
		for done := 0; done < m.n || done == 0; {
			h++
			b := store.BlockBundle{Block: store.Block{ChainID: chain, Height: h, Hash: sha(fmt.Sprintf("nft-block-%d", h)),
				Time: t0.Add(time.Duration(h) * 500 * time.Millisecond), TxCount: 1, TotalFee: json.RawMessage(`[]`)}}
			signer := Account(m.coll % o.Accounts)
			txHash := sha(fmt.Sprintf("nft-tx-%d", h))
			b.Txs = []store.Tx{{Hash: txHash, Height: h, Signer: signer,
				Accounts: []store.TxAccount{{Addr: signer, Signer: true}},
				JSON:     json.RawMessage(fmt.Sprintf(`{"txhash":"%X","height":"%d"}`, txHash, h))}}
			nr := &store.NFTRows{}
			b.Extensions = []store.ExtensionRows{nr}
			if done == 0 {
				nr.NFTs = append(nr.NFTs, store.NFTChange{Kind: store.NFTCreateCollection, TxIndex: 0, Collection: NFTCollection(m.coll),
					Name: NFTCollectionName(m.coll), Creator: signer})
			}
			for ; done < m.n && len(nr.NFTs) < perBlock; done++ {
				id := strconv.Itoa(done)
				owner := Account(token % o.Accounts)
				nr.NFTs = append(nr.NFTs, store.NFTChange{Kind: store.NFTMint, TxIndex: 0, Edge: true, Collection: NFTCollection(m.coll),
					TokenID: id, Owner: owner, URI: "ipfs://bench/" + strconv.Itoa(m.coll) + "/" + id})
				if token%10 == 0 {
					nr.NFTs = append(nr.NFTs, store.NFTChange{Kind: store.NFTTransfer, TxIndex: 0, Edge: true, Collection: NFTCollection(m.coll),
						TokenID: id, Owner: Account((token + 1) % o.Accounts)})
				}
				token++
			}
			batch = append(batch, b)
			if len(batch) >= 20 {
				if err := flush(); err != nil {
					return err
				}
			}
			if m.n == 0 {
				break
			}
		}
	}
	return flush()
}

func sha(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
