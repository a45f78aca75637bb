package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// moveEvent is the union of the fields the NFT events carry in their `data` attribute.
type moveEvent struct {
	Collection       string `json:"collection"`
	Creator          string `json:"creator"`
	Name             string `json:"name"`
	TokenID          string `json:"token_id"`
	NFT              string `json:"nft"`
	URI              string `json:"uri"`
	Object           string `json:"object"`
	To               string `json:"to"`
	MutatedFieldName string `json:"mutated_field_name"`
	NewValue         string `json:"new_value"`
}

// objectAddr parses a Move object address: 32 bytes, whose JSON form drops leading zero
// nibbles, so it is padded back (the API looks objects up padded).
func objectAddr(s string) ([]byte, error) {
	b, err := address.ParseHex(s)
	if err != nil {
		return nil, err
	}
	if len(b) > 32 {
		return nil, fmt.Errorf("object address %q longer than 32 bytes", s)
	}
	out := make([]byte, 32)
	copy(out[32-len(b):], b)
	return out, nil
}

// moveTx reads the 0x1::collection, 0x1::nft and 0x1::object events of one tx. A mint takes
// its token id and URI from the tx's 0x1::nft::CreateEvent; when that is missing (older
// framework events carry an index instead of a token id) the 0x1::nft::Nft resource is read
// at the block's height, as rollytics always does.
func (x *nftExtractor) moveTx(ctx context.Context, h int64, txIndex int, events []Event, b *store.NFTRows) error {
	type parsed struct {
		tag string
		ev  moveEvent
	}
	var evs []parsed
	uris := map[string]string{} // collection\x00token_id → uri from nft::CreateEvent
	for _, ev := range events {
		if ev.Type != eventMove {
			continue
		}
		a := eventAttrs(ev)
		tag := a["type_tag"]
		switch tag {
		case "0x1::collection::CreateCollectionEvent", "0x1::collection::MintEvent", "0x1::collection::BurnEvent",
			"0x1::object::TransferEvent", "0x1::nft::MutationEvent", "0x1::nft::CreateEvent":
		default:
			continue
		}
		var me moveEvent
		if err := json.Unmarshal([]byte(a["data"]), &me); err != nil {
			return fmt.Errorf("height %d: %w: %s data: %w", h, ErrInvalidData, tag, err)
		}
		if tag == "0x1::nft::CreateEvent" {
			if c, err := objectAddr(me.Collection); err == nil {
				uris[string(c)+"\x00"+me.TokenID] = me.URI
			}
			continue
		}
		evs = append(evs, parsed{tag, me})
	}
	for _, p := range evs {
		me := p.ev
		switch p.tag {
		case "0x1::collection::CreateCollectionEvent":
			coll, err := objectAddr(me.Collection)
			if err != nil {
				continue
			}
			creator, err := address.NormalizeHex(me.Creator)
			if err != nil {
				creator = nil
			}
			b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTCreateCollection, TxIndex: txIndex, Collection: coll, Name: me.Name, Creator: creator})
		case "0x1::collection::MintEvent":
			coll, err1 := objectAddr(me.Collection)
			obj, err2 := objectAddr(me.NFT)
			if err1 != nil || err2 != nil {
				continue
			}
			id := me.TokenID
			uri, ok := uris[string(coll)+"\x00"+id]
			if id == "" || !ok {
				var err error
				if id, uri, err = x.moveNFT(ctx, h, me.NFT); err != nil {
					if errors.Is(err, ErrQueryFailed) {
						continue // no such NFT at that height (burned in the same block)
					}
					return err
				}
			}
			b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTMint, TxIndex: txIndex, Collection: coll, TokenID: id,
				ObjectAddr: obj, URI: uri})
		case "0x1::object::TransferEvent":
			obj, err := objectAddr(me.Object)
			to, err2 := address.NormalizeHex(me.To)
			if err != nil || err2 != nil {
				continue
			}
			b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTTransfer, TxIndex: txIndex, ObjectAddr: obj, Owner: to})
		case "0x1::nft::MutationEvent":
			obj, err := objectAddr(me.NFT)
			if err != nil || me.MutatedFieldName != "uri" {
				continue
			}
			b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTSetURI, TxIndex: txIndex, ObjectAddr: obj, URI: me.NewValue})
		case "0x1::collection::BurnEvent":
			obj, err := objectAddr(me.NFT)
			if err != nil {
				continue
			}
			b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTBurn, TxIndex: txIndex, ObjectAddr: obj})
		}
	}
	return nil
}

// moveNFT reads token id and URI of an NFT object from its 0x1::nft::Nft resource.
func (x *nftExtractor) moveNFT(ctx context.Context, h int64, obj string) (string, string, error) {
	raw, err := x.q.MoveResource(ctx, h, obj, "0x1::nft::Nft")
	if err != nil {
		return "", "", err
	}
	var nft struct {
		TokenID string `json:"token_id"`
		URI     string `json:"uri"`
	}
	if err := json.Unmarshal(raw, &nft); err != nil {
		return "", "", fmt.Errorf("height %d: %w: nft resource of %s: %w", h, ErrInvalidData, obj, err)
	}
	return nft.TokenID, strings.ReplaceAll(nft.URI, "\x00", ""), nil
}
