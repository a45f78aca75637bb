// Package move simulates the Move VM of a minimove rollup (and the Move-backed bank of the
// Initia L1) on the devnet: `initia.move.v1.MsgExecute`/`MsgExecuteJSON` entry functions of the
// standard library that real traffic uses (simple_nft collections and tokens, object transfers,
// managed coins, fungible-asset transfers), the `move` events they emit, the REST resource
// queries an indexer makes, a seeded traffic generator, and the BankFlavor that renders bank
// movements with the fungible-asset events a Move chain adds to them. Nothing here runs Move
// bytecode: each supported entry function is re-implemented against a small object store, and
// every address is derived with the chain's real formulas so the output cannot be told apart
// from a real chain's.
package move

import (
	"crypto/sha3"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Address scheme bytes appended before hashing (Move `object.move`).
const (
	schemeDerived = 0xFC // object derived from an owner and a seed address (primary stores)
	schemeNamed   = 0xFE // object named by a creator and a seed (collections, NFTs, FA metadata)
)

// Addr is a 32-byte Move address.
type Addr [32]byte

// StdAddr is the standard library's address, 0x1.
var StdAddr = Addr{31: 1}

// AccAddr widens a 20-byte (or shorter) account address to a Move address.
func AccAddr(b []byte) Addr {
	var a Addr
	if len(b) > 32 {
		b = b[len(b)-32:]
	}
	copy(a[32-len(b):], b)
	return a
}

// String renders the address as Move prints it: lowercase hex without leading zeros, so an
// account shows its 20 bytes and an object may show 63 digits.
func (a Addr) String() string {
	s := strings.TrimLeft(hex.EncodeToString(a[:]), "0")
	if s == "" {
		s = "0"
	}
	return "0x" + s
}

// Hex is the full 64-digit lowercase hex without 0x (as used in `move/<hex>` denoms and abort
// locations).
func (a Addr) Hex() string { return hex.EncodeToString(a[:]) }

// Account returns the last 20 bytes (the Cosmos account form of an account address).
func (a Addr) Account() []byte { return append([]byte(nil), a[12:]...) }

// ErrBadAddress is returned for malformed hex addresses.
var ErrBadAddress = errors.New("invalid hex address")

// ParseAddr parses "0x…" hex of up to 64 digits (leading zeros optional).
func ParseAddr(s string) (Addr, error) {
	var a Addr
	h := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if h == "" || len(h) > 64 {
		return a, ErrBadAddress
	}
	if len(h)%2 == 1 {
		h = "0" + h
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return a, ErrBadAddress
	}
	copy(a[32-len(b):], b)
	return a, nil
}

// NamedObject is the address of an object created with `object::create_named_object`:
// sha3-256(creator ‖ seed ‖ 0xFE).
func NamedObject(creator Addr, seed []byte) Addr {
	h := sha3.New256()
	h.Write(creator[:])
	h.Write(seed)
	h.Write([]byte{schemeNamed})
	var a Addr
	copy(a[:], h.Sum(nil))
	return a
}

// DerivedObject is the address of an object derived from an owner and another object's
// address (`object::create_object_address_from_derived`): sha3-256(owner ‖ from ‖ 0xFC).
func DerivedObject(owner, from Addr) Addr {
	h := sha3.New256()
	h.Write(owner[:])
	h.Write(from[:])
	h.Write([]byte{schemeDerived})
	var a Addr
	copy(a[:], h.Sum(nil))
	return a
}

// CoinMetadata is the fungible-asset metadata object of a bank denom: for `move/<hex>` denoms
// the hex itself, for every other denom the object named by 0x1 with the denom as seed.
func CoinMetadata(denom string) Addr {
	if h, ok := strings.CutPrefix(denom, "move/"); ok && len(h) == 64 {
		if a, err := ParseAddr(h); err == nil {
			return a
		}
	}
	return NamedObject(StdAddr, []byte(denom))
}

// PrimaryStore is the primary fungible store of owner for the asset with the given metadata.
func PrimaryStore(owner, metadata Addr) Addr { return DerivedObject(owner, metadata) }

// CollectionAddr is the object of the collection `name` created by creator.
func CollectionAddr(creator Addr, name string) Addr { return NamedObject(creator, []byte(name)) }

// NftAddr is the object of token tokenID in collection `collection` created by creator
// (seed `<collection>::<token_id>`).
func NftAddr(creator Addr, collection, tokenID string) Addr {
	return NamedObject(creator, []byte(collection+"::"+tokenID))
}

// ManagedCoinMetadata is the metadata object `managed_coin::initialize` creates for symbol.
func ManagedCoinMetadata(creator Addr, symbol string) Addr {
	return NamedObject(creator, []byte(symbol))
}

// MoveDenom is the bank denom of a fungible asset created in Move: `move/<64 hex digits>`.
func MoveDenom(metadata Addr) string { return "move/" + metadata.Hex() }

func abortLocation(module string) string {
	return fmt.Sprintf("%s::%s", StdAddr.Hex(), module)
}
