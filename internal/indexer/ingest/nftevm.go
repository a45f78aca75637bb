package ingest

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// ERC-721 Transfer logs share transferTopic (richlist.go) with ERC-20's; ERC-721 indexes the
// token id too, so its logs have four topics and empty data.

const zeroTopic = "0x0000000000000000000000000000000000000000000000000000000000000000"

// ERC-721 selectors: name() and tokenURI(uint256).
var (
	selName     = []byte{0x06, 0xfd, 0xde, 0x03}
	selTokenURI = []byte{0xc8, 0x7b, 0x56, 0xdd}
)

// evmTx reads the ERC-721 Transfer logs of one tx from its `evm` events (attribute `log`,
// the receipt's logs as minievm emits them). The first sight of a contract asks name(); a
// revert marks it not-an-NFT for good.
//
// A mint's tokenURI() is not asked here but queued in uris, so a block minting dozens of tokens
// asks for their URIs together (evmTokenURIs) rather than one after the other.
func (x *nftExtractor) evmTx(ctx context.Context, h int64, txIndex int, events []Event, b *store.NFTRows, uris *[]uriJob) error {
	for _, ev := range events {
		if ev.Type != eventEVM {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key != "log" {
				continue
			}
			var l evmLog // the receipt log shape (evm.go); only address, topics and data are set
			if jsonx.Unmarshal([]byte(a.Value), &l) != nil || len(l.Topics) != 4 || !strings.EqualFold(l.Topics[0], transferTopic) ||
				(l.Data != "0x" && l.Data != "") {
				continue
			}
			coll, err := address.ParseHex(l.Address)
			if err != nil || len(coll) != 20 {
				continue
			}
			to, err2 := address.NormalizeHex(l.Topics[2])
			idb, err3 := hex.DecodeString(strings.TrimPrefix(strings.ToLower(l.Topics[3]), "0x"))
			if err2 != nil || err3 != nil {
				continue
			}
			id := new(big.Int).SetBytes(idb)
			tokenID := id.String()
			ok, err := x.evmCollection(ctx, h, txIndex, l.Address, coll, b)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			c := store.NFTChange{TxIndex: txIndex, Edge: true, Collection: coll, TokenID: tokenID}
			switch {
			case strings.EqualFold(l.Topics[1], zeroTopic):
				c.Kind, c.Owner = store.NFTMint, to
				*uris = append(*uris, uriJob{at: len(b.NFTs), contract: l.Address, id: id})
			case strings.EqualFold(l.Topics[2], zeroTopic):
				c.Kind = store.NFTBurn
			default:
				c.Kind, c.Owner = store.NFTTransfer, to
				if x.startHeight > 1 {
					// The token may have been minted before the store's first height, where no
					// mint was seen: the transfer then adds it, with its URI at this height.
					c.MintIfMissing = true
					if c.URI, err = x.evmTokenURI(ctx, h, l.Address, id); err != nil {
						return err
					}
				}
			}
			b.NFTs = append(b.NFTs, c)
		}
	}
	return nil
}

// evmCollection makes sure the bundle creates the contract's collection before its first
// change (the writer ignores creations of known collections); false means not an NFT.
func (x *nftExtractor) evmCollection(ctx context.Context, h int64, txIndex int, raw string, coll []byte, b *store.NFTRows) (bool, error) {
	ci, notNFT, mine, err := x.lookup(ctx, coll, func() (collectionInfo, error) {
		out, err := x.q.EVMCall(ctx, h, raw, selName)
		if err != nil {
			return collectionInfo{}, err
		}
		name, err := abiString(out)
		return collectionInfo{name: name}, err
	})
	if err != nil {
		return false, err
	}
	if mine {
		b.NotNFT = append(b.NotNFT, coll)
	}
	if notNFT {
		return false, nil
	}
	for _, c := range b.NFTs {
		if c.Kind == store.NFTCreateCollection && string(c.Collection) == string(coll) {
			return true, nil
		}
	}
	b.NFTs = append(b.NFTs, store.NFTChange{Kind: store.NFTCreateCollection, TxIndex: txIndex, Collection: coll, Name: ci.name, CreatorFromFirstTx: true})
	return true, nil
}

// uriJob is a minted token whose URI is still to be asked: the change b.NFTs[at].
type uriJob struct {
	at       int
	contract string
	id       *big.Int
}

// uriConcurrency bounds the tokenURI() calls of one block in flight. The busy capture's
// height 396 mints dozens of tokens: asked one after the other, each call's latency (and,
// through a faulty upstream, each retry) added up while the writer waited for that height.
const uriConcurrency = 8

// evmTokenURIs asks the queued mints' URIs, uriConcurrency at a time, into b.NFTs.
func (x *nftExtractor) evmTokenURIs(ctx context.Context, h int64, uris []uriJob, b *store.NFTRows) error {
	if len(uris) == 0 {
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(uriConcurrency)
	for _, j := range uris {
		g.Go(func() error {
			uri, err := x.evmTokenURI(gctx, h, j.contract, j.id)
			b.NFTs[j.at].URI = uri // each job its own element; nothing appends meanwhile
			return err
		})
	}
	return g.Wait()
}

// evmTokenURI asks tokenURI(id); a revert gives "" as in rollytics.
func (x *nftExtractor) evmTokenURI(ctx context.Context, h int64, contract string, id *big.Int) (string, error) {
	in := make([]byte, 4+32)
	copy(in, selTokenURI)
	id.FillBytes(in[4:])
	out, err := x.q.EVMCall(ctx, h, contract, in)
	var uri string
	if err == nil {
		uri, err = abiString(out)
	}
	if errors.Is(err, ErrQueryFailed) {
		return "", nil
	}
	return uri, err
}

// abiString decodes an ABI-encoded string return value; a malformed one is a failed call
// (the contract does not implement the function as ERC-721 says).
func abiString(out []byte) (string, error) {
	if len(out) < 64 {
		return "", fmt.Errorf("%w: return value of %d bytes", ErrQueryFailed, len(out))
	}
	off := new(big.Int).SetBytes(out[:32])
	if !off.IsInt64() || off.Int64() > int64(len(out))-32 {
		return "", fmt.Errorf("%w: string offset out of range", ErrQueryFailed)
	}
	o := off.Int64()
	lenWord := out[o : o+32]
	for _, c := range lenWord[:24] {
		if c != 0 {
			return "", fmt.Errorf("%w: string length out of range", ErrQueryFailed)
		}
	}
	n := binary.BigEndian.Uint64(lenWord[24:])
	if n > uint64(len(out))-uint64(o)-32 {
		return "", fmt.Errorf("%w: string length out of range", ErrQueryFailed)
	}
	s := string(out[o+32 : o+32+int64(n)])
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ReplaceAll(s, "\x00", ""), nil
}
