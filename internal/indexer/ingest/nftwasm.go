package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// wasmTx reads the CW721 `wasm` events of one tx. A contract becomes a collection the first
// time one of its events looks like a CW721 instantiate or mint (`minter` plus `creator` or
// `owner`), whatever the height: its name comes from the contract_info smart query and its
// creator is the instantiator. A contract that does not answer contract_info is marked
// not-an-NFT. URI updates (update_nft_info), which carry no URI, are read back with nft_info.
func (x *nftExtractor) wasmTx(ctx context.Context, h int64, txIndex int, events []Event, b *store.NFTRows) error {
	for _, ev := range events {
		if ev.Type != eventWasm {
			continue
		}
		a := eventAttrs(ev)
		contract := a["_contract_address"]
		coll, err := address.FromBech32(x.prefix, contract)
		if err != nil {
			continue
		}
		if x.isNotNFT(coll) {
			continue
		}
		_, hasMinter := a["minter"]
		_, hasCreator := a["creator"]
		_, hasOwner := a["owner"]
		if hasMinter && (hasCreator || hasOwner) {
			if err := x.wasmCollection(ctx, h, txIndex, contract, coll, b); err != nil {
				return err
			}
		}
		c := store.NFTChange{TxIndex: txIndex, Edge: true, Collection: coll, TokenID: a["token_id"]}
		switch a["action"] {
		case "mint":
			owner, err := address.Parse(x.prefix, a["owner"])
			if err != nil {
				continue
			}
			c.Kind, c.Owner, c.URI = store.NFTMint, owner, a["token_uri"]
		case "transfer_nft", "send_nft":
			to, err := address.Parse(x.prefix, a["recipient"])
			if err != nil {
				continue
			}
			c.Kind, c.Owner = store.NFTTransfer, to
		case "burn":
			c.Kind = store.NFTBurn
		case "update_nft_info":
			uri, err := x.wasmTokenURI(ctx, h, contract, c.TokenID)
			if errors.Is(err, ErrQueryFailed) {
				continue // burned later in the same block: nothing left to update
			}
			if err != nil {
				return err
			}
			c.Kind, c.URI = store.NFTSetURI, uri
		default:
			continue
		}
		if c.TokenID == "" {
			continue
		}
		b.NFTs = append(b.NFTs, c)
	}
	return nil
}

func (x *nftExtractor) wasmCollection(ctx context.Context, h int64, txIndex int, contract string, coll []byte, b *store.NFTRows) error {
	ci, notNFT, mine, err := x.lookup(ctx, coll, func() (collectionInfo, error) {
		raw, err := x.q.WasmSmart(ctx, h, contract, []byte(`{"contract_info":{}}`))
		if err != nil {
			return collectionInfo{}, err
		}
		var info struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &info) != nil {
			return collectionInfo{}, fmt.Errorf("%w: contract_info of %s is not an object", ErrQueryFailed, contract)
		}
		// The contract answered contract_info, so a definite failure of its metadata query is
		// no verdict on it being a collection: the creator stays unknown.
		var cb []byte
		creator, err := x.q.WasmCreator(ctx, h, contract)
		switch {
		case err == nil:
			cb, _ = address.Parse(x.prefix, creator)
		case !errors.Is(err, ErrQueryFailed):
			return collectionInfo{}, err
		}
		return collectionInfo{name: info.Name, creator: cb}, nil
	})
	if err != nil {
		return err
	}
	if mine {
		b.NotNFT = append(b.NotNFT, coll)
	}
	if notNFT {
		return nil
	}
	for _, c := range b.NFTs {
		if c.Kind == store.NFTCreateCollection && string(c.Collection) == string(coll) {
			return nil
		}
	}
	b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTCreateCollection, TxIndex: txIndex, Collection: coll, Name: ci.name, Creator: ci.creator})
	return nil
}

func (x *nftExtractor) wasmTokenURI(ctx context.Context, h int64, contract, tokenID string) (string, error) {
	q, err := json.Marshal(map[string]any{"nft_info": map[string]string{"token_id": tokenID}})
	if err != nil {
		return "", err
	}
	raw, err := x.q.WasmSmart(ctx, h, contract, q)
	if err != nil {
		return "", err
	}
	var info struct {
		TokenURI *string `json:"token_uri"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return "", fmt.Errorf("%w: nft_info of %s/%s: %w", ErrQueryFailed, contract, tokenID, err)
	}
	if info.TokenURI == nil {
		return "", nil
	}
	return *info.TokenURI, nil
}
