package devnet

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/wasm"
)

// Ground truth: what a chain itself holds, read from its state and block store rather than
// over any API, so the product's tests can hold the indexer's answers to it.

// Block is a committed block as the chain holds it.
type Block struct {
	Height   int64
	Hash     []byte
	TxHashes [][]byte   // in block order
	Results  []TxResult // one per tx, in block order
}

// TxResult is one tx's DeliverTx outcome.
type TxResult struct {
	Code   uint32
	Events []Event
}

// Event is one ABCI event of a tx.
type Event struct {
	Type       string
	Attributes []Attribute
}

// Attribute is one key/value of an event.
type Attribute struct{ Key, Value string }

// Account is a keyed genesis account of a chain: the i-th is Key(i)'s.
type Account struct {
	Addr   []byte // 20 bytes
	Bech32 string
}

// NFT is a live token: its owner's raw address and its URI.
type NFT struct {
	Owner []byte
	URI   string
}

// Block reads a committed block (an error past the tip or below the retained base).
func (c *Chain) Block(height int64) (Block, error) {
	b, err := c.eng.Block(height)
	if err != nil {
		return Block{}, err
	}
	out := Block{Height: b.Height, Hash: b.ID.Hash, TxHashes: make([][]byte, len(b.TxHashes)), Results: make([]TxResult, len(b.Results))}
	for i, h := range b.TxHashes {
		out.TxHashes[i] = append([]byte(nil), h[:]...)
	}
	for i, r := range b.Results {
		res := TxResult{Code: r.Code, Events: make([]Event, len(r.Events))}
		for j, ev := range r.Events {
			e := Event{Type: ev.Type, Attributes: make([]Attribute, len(ev.Attributes))}
			for k, a := range ev.Attributes {
				e.Attributes[k] = Attribute{a.Key, a.Value}
			}
			res.Events[j] = e
		}
		out.Results[i] = res
	}
	return out, nil
}

// Accounts lists the chain's keyed genesis accounts (Config.Accounts of them).
func (c *Chain) Accounts() []Account {
	accs := c.eng.Accounts()
	out := make([]Account, len(accs))
	for i, a := range accs {
		out[i] = Account{Addr: a.Addr, Bech32: a.Bech32}
	}
	return out
}

// Balances is the chain's bank balance table at a height: denom → holder (lowercase hex of
// the raw address) → amount, positive amounts only.
func (c *Chain) Balances(height int64) (map[string]map[string]string, error) {
	q, err := c.eng.Query(height)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	var bad error
	q.Store("bank").Iterate("b/", func(k string, v []byte) bool {
		addr, denom, ok := strings.Cut(strings.TrimPrefix(k, "b/"), "/")
		if !ok {
			bad = fmt.Errorf("devnet: bank key %q", k)
			return false
		}
		if amt, ok := new(big.Int).SetString(string(v), 10); ok && amt.Sign() > 0 {
			if out[denom] == nil {
				out[denom] = map[string]string{}
			}
			out[denom][addr] = amt.String()
		}
		return true
	})
	return out, bad
}

// NFTs reads every NFT collection and live token of a rollup's VM at a height: collection
// (0x hex; Move objects padded to 32 bytes) → token id → token. An EVM contract appears once
// it minted, since before that no log names it. Other chains hold none.
func (c *Chain) NFTs(height int64) (map[string]map[string]NFT, error) {
	q, err := c.eng.Query(height)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]NFT{}
	switch c.Spec.Kind {
	case KindEVM:
		kv := q.Store(evm.StoreName)
		err = iterJSON(kv, "c/", func(k string, v struct {
			Kind   string `json:"kind"`
			Minted uint64 `json:"minted"`
		}) error {
			if v.Kind == "erc721" && v.Minted > 0 {
				out["0x"+k] = map[string]NFT{}
			}
			return nil
		})
		if err == nil {
			err = iterJSON(kv, "t/", func(k string, v struct {
				Owner string `json:"owner"`
				URI   string `json:"uri"`
			}) error {
				coll, idHex, _ := strings.Cut(k, "/")
				id, ok := new(big.Int).SetString(idHex, 16)
				owner, err := hex.DecodeString(v.Owner)
				if !ok || err != nil {
					return fmt.Errorf("devnet: evm token key %q", k)
				}
				out["0x"+coll][id.String()] = NFT{owner, v.URI}
				return nil
			})
		}
	case KindWasm:
		kv := q.Store(wasm.StoreName)
		err = iterJSON(kv, "cw721/", func(k string, _ struct{}) error { out["0x"+k] = map[string]NFT{}; return nil })
		if err == nil {
			err = iterJSON(kv, "token/", func(k string, v struct {
				Owner    string  `json:"owner"`
				TokenURI *string `json:"token_uri"`
			}) error {
				coll, id, _ := strings.Cut(k, "/")
				owner, err := address.FromBech32("init", v.Owner)
				if err != nil {
					return fmt.Errorf("devnet: wasm token %q owner %q", k, v.Owner)
				}
				tk := NFT{Owner: owner}
				if v.TokenURI != nil {
					tk.URI = *v.TokenURI
				}
				out["0x"+coll][id] = tk
				return nil
			})
		}
	case KindMove:
		kv := q.Store(move.StoreName)
		err = iterJSON(kv, "col/", func(k string, _ struct{}) error {
			p, err := pad32(k)
			out[p] = map[string]NFT{}
			return err
		})
		if err == nil {
			err = iterJSON(kv, "nft/", func(k string, v struct {
				Collection string `json:"collection"`
				TokenID    string `json:"token_id"`
				URI        string `json:"uri"`
			}) error {
				raw, ok := kv.Get("obj/" + k)
				var obj struct {
					Owner string `json:"owner"`
				}
				if !ok || json.Unmarshal(raw, &obj) != nil {
					return fmt.Errorf("devnet: move nft %s has no object", k)
				}
				owner, err := address.NormalizeHex(obj.Owner)
				if err != nil {
					return fmt.Errorf("devnet: move nft %s owner %q", k, obj.Owner)
				}
				coll, err := pad32(v.Collection)
				if err != nil {
					return err
				}
				out[coll][v.TokenID] = NFT{owner, v.URI}
				return nil
			})
		}
	}
	return out, err
}

// pad32 is a Move object address as the indexer names it: 0x and 64 hex digits.
func pad32(s string) (string, error) {
	b, err := address.ParseHex(s)
	if err != nil || len(b) > 32 {
		return "", fmt.Errorf("devnet: object address %q", s)
	}
	p := make([]byte, 32)
	copy(p[32-len(b):], b)
	return address.Hex(p), nil
}

func iterJSON[V any](kv sim.KVReader, prefix string, fn func(key string, v V) error) error {
	var err error
	kv.Iterate(prefix, func(k string, b []byte) bool {
		var v V
		if e := json.Unmarshal(b, &v); e != nil {
			err = fmt.Errorf("devnet: %s: %w", k, e)
			return false
		}
		err = fn(strings.TrimPrefix(k, prefix), v)
		return err == nil
	})
	return err
}

// NFTClassNames maps the ICS-721 classes a chain (the L1) originates, id → name, at a height.
func (c *Chain) NFTClassNames(height int64) (map[string]string, error) {
	q, err := c.eng.Query(height)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, cl := range ibc.NFTClasses(q.Store(ibc.StoreName)) {
		names[cl.ID] = cl.Name
	}
	return names, nil
}

// NFTTraces maps the voucher classes a chain received over ICS-721 to their prefixed paths,
// at a height.
func (c *Chain) NFTTraces(height int64) (map[string]string, error) {
	q, err := c.eng.Query(height)
	if err != nil {
		return nil, err
	}
	return ibc.NFTTraces(q.Store(ibc.StoreName)), nil
}

// ICS721Collection is the collection a received voucher class was minted into on a rollup
// (lowercase 0x hex: the EVM contract, the Wasm contract, or the Move collection object the
// nft-transfer module created), read from the VM's own state at a height.
func (c *Chain) ICS721Collection(height int64, voucher string) (string, error) {
	q, err := c.eng.Query(height)
	if err != nil {
		return "", err
	}
	switch c.Spec.Kind {
	case KindEVM:
		a, ok := evm.ICS721Contract(q.Store(evm.StoreName), voucher)
		if !ok {
			return "", fmt.Errorf("devnet: evm: no contract for %s", voucher)
		}
		return strings.ToLower(a.Hex()), nil
	case KindWasm:
		a, ok := wasm.ICS721Contract(q.Store(wasm.StoreName), voucher)
		if !ok {
			return "", fmt.Errorf("devnet: wasm: no contract for %s", voucher)
		}
		return address.Hex(a), nil
	default:
		col := move.CollectionAddr(move.AccAddr(address.ModuleAccount(ibc.NFTModule)), voucher)
		return address.Hex(col[:]), nil
	}
}
