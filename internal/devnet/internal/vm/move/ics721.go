package move

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ICS721Token is one token an ICS-721 packet brings: its id and URI.
type ICS721Token struct {
	ID  string
	URI string
}

// ReceiveICS721 mints tokens of a class received over ICS-721 in the Move token model, as
// minimove's nft-transfer does: the class becomes a collection named after the voucher class
// (ibc/…), created by creator (the nft-transfer module account) on its first receive, and each
// token an NFT object of that collection, minted by creator and transferred to receiver. The
// events are the ones simple_nft's create_collection and mint emit (object create, collection
// create, collection mint, nft create, object transfer), so indexers see a native collection.
func (m *Module) ReceiveICS721(env sim.Env, creator []byte, class, classURI string, tokens []ICS721Token, receiver []byte) error {
	kvs := env.Store(StoreName)
	c := &call{m: m, env: env, kv: kvs, sender: AccAddr(creator)}
	col := CollectionAddr(c.sender, class)
	var rec collectionRec
	if !getJSON(kvs, keyCol(col), &rec) {
		if len(class) > maxNameLen || len(classURI) > maxURILen {
			return fmt.Errorf("class %s: name or uri too long for a collection", class)
		}
		version, err := c.newObject(col)
		if err != nil {
			return err
		}
		rec = collectionRec{Creator: c.sender.Hex(), Name: class, URI: classURI, Royalty: formatDecimal(new(big.Int)),
			Handle: NamedObject(AccAddr(env.TxHash()), col[:]).Hex()}
		if err := putJSON(kvs, keyObj(col), objectRec{Owner: c.sender.Hex(), Kind: kindCollection, Version: version}); err != nil {
			return err
		}
		c.emit(
			objectCreateEvent(col, c.sender, version),
			moveEvent(tagCollectionCreate,
				kv{"collection", col.String()}, kv{"creator", c.sender.String()}, kv{"name", class},
				kv{"description", ""}, kv{"uri", classURI},
				kv{"royalty", []kv{{"royalty", rec.Royalty}, {"payee_address", c.sender.String()}}},
				kv{"supply", []kv{{"current_supply", "0"}, {"total_minted", "0"}}}),
			moveEvent(tagCreateCollection, kv{"collection", col.String()}, kv{"creator", c.sender.String()}, kv{"name", class}),
		)
	}
	to := AccAddr(receiver)
	for _, t := range tokens {
		if len(t.ID) > maxNameLen || len(t.URI) > maxURILen {
			return fmt.Errorf("token %s: id or uri too long", t.ID)
		}
		nft := NftAddr(c.sender, class, t.ID)
		version, err := c.newObject(nft)
		if err != nil {
			return err
		}
		rec.Current++
		rec.Minted++
		if err := putJSON(kvs, keyNft(nft), nftRec{Collection: col.Hex(), TokenID: t.ID, URI: t.URI}); err != nil {
			return err
		}
		if err := putJSON(kvs, keyObj(nft), objectRec{Owner: to.Hex(), Kind: kindNft, Version: version}); err != nil {
			return err
		}
		c.emit(
			objectCreateEvent(nft, c.sender, version),
			moveEvent(tagCollectionMint, kv{"collection", col.String()}, kv{"token_id", t.ID}, kv{"nft", nft.String()}),
			moveEvent(tagNftCreate, kv{"collection", col.String()}, kv{"token_id", t.ID}, kv{"description", ""}, kv{"uri", t.URI}),
		)
		if to != c.sender {
			c.emit(transferEvent(nft, c.sender, to))
		}
	}
	return putJSON(kvs, keyCol(col), rec)
}

// ICS721ClassPrefix starts the ICS-721 class id of a Move collection sent from its home chain:
// move/ + the collection's 64-digit hex address (the form InterwovenKit builds,
// initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/wallet/txs/send-nft/tx.move.ts).
const ICS721ClassPrefix = "move/"

// ICS721Collection parses a class id of the move/<hex> form.
func ICS721Collection(classID string) (Addr, bool) {
	h, ok := strings.CutPrefix(classID, ICS721ClassPrefix)
	if !ok || len(h) != 64 {
		return Addr{}, false
	}
	a, err := ParseAddr(h)
	return a, err == nil
}

// EscrowICS721 moves tokens of a native collection (class id move/<collection>) from sender to
// an ICS-721 escrow account, as object transfers: the sender must own each NFT object, as
// object::transfer requires. It returns the collection's name and URI and the tokens' URIs
// for the packet.
func (m *Module) EscrowICS721(env sim.Env, classID string, tokenIDs []string, sender, escrow []byte) (name, uri string, uris []string, err error) {
	kvs := env.Store(StoreName)
	colAddr, ok := ICS721Collection(classID)
	var col collectionRec
	if !ok || !getJSON(kvs, keyCol(colAddr), &col) {
		return "", "", nil, abort("collection", codeObjectMissing)
	}
	c := &call{m: m, env: env, kv: kvs, sender: AccAddr(sender)}
	// Every token is checked before any moves, so a refused send changes nothing.
	objs := make([]Addr, len(tokenIDs))
	recs := make([]objectRec, len(tokenIDs))
	for i, id := range tokenIDs {
		objs[i] = NftAddr(hexAddr(col.Creator), col.Name, id)
		var n nftRec
		if !getJSON(kvs, keyObj(objs[i]), &recs[i]) || !getJSON(kvs, keyNft(objs[i]), &n) {
			return "", "", nil, abort("nft", codeNftMissing)
		}
		if hexAddr(recs[i].Owner) != c.sender {
			return "", "", nil, abort("object", codeNotObjectOwner)
		}
		uris = append(uris, n.URI)
	}
	for i := range objs {
		if err := c.moveObject(objs[i], recs[i], AccAddr(escrow)); err != nil {
			return "", "", nil, err
		}
	}
	return col.Name, col.URI, uris, nil
}

// RefundICS721 gives escrowed tokens of a native collection back to their sender (a failed
// or timed-out ICS-721 send).
func (m *Module) RefundICS721(env sim.Env, classID string, tokenIDs []string, escrow, sender []byte) error {
	kvs := env.Store(StoreName)
	colAddr, ok := ICS721Collection(classID)
	var col collectionRec
	if !ok || !getJSON(kvs, keyCol(colAddr), &col) {
		return fmt.Errorf("class %s: no such collection", classID)
	}
	c := &call{m: m, env: env, kv: kvs, sender: AccAddr(escrow)}
	objs := make([]Addr, len(tokenIDs))
	recs := make([]objectRec, len(tokenIDs))
	for i, id := range tokenIDs {
		objs[i] = NftAddr(hexAddr(col.Creator), col.Name, id)
		if !getJSON(kvs, keyObj(objs[i]), &recs[i]) || hexAddr(recs[i].Owner) != c.sender {
			return fmt.Errorf("nft %s/%s is not in escrow", classID, id)
		}
	}
	for i := range objs {
		if err := c.moveObject(objs[i], recs[i], AccAddr(sender)); err != nil {
			return err
		}
	}
	return nil
}

// moveObject changes an object's owner from the call's sender to to, with the transfer event.
func (c *call) moveObject(obj Addr, rec objectRec, to Addr) error {
	rec.Owner = to.Hex()
	if err := putJSON(c.kv, keyObj(obj), rec); err != nil {
		return err
	}
	c.emit(transferEvent(obj, c.sender, to))
	return nil
}
