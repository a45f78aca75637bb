package ingest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/rollgate/rollgate/internal/store"
)

// MoveTransfers reads the movements of a Move chain from a tx's `move` events: the fungible
// asset's WithdrawEvent / WithdrawOwnerEvent and DepositEvent / DepositOwnerEvent pairs (a
// withdrawal and the next deposit of the same asset and amount are one transfer; a deposit
// nothing was withdrawn for is a mint, a withdrawal nothing was deposited from a burn), and
// 0x1::object::TransferEvent, the transfer of a token object. Every x/bank movement of a Move
// chain is such a pair too, and then only lends the bank movement its metadata object. An
// asset is named without asking the chain (transfers.name): by the bank denom a bank movement
// of the block names its metadata with, else move/<metadata hex>.
func MoveTransfers() TransferVM { return &moveTransferVM{} }

type moveTransferVM struct{}

func (*moveTransferVM) bind(*Pipeline) error { return nil }

func (*moveTransferVM) bankDenom(d string) string { return d }

// name names an asset no bank movement of its block named by its metadata object: move/<hex>,
// the bank denom Initia's Move bank gives a fungible asset it did not create from a coin.
func (*moveTransferVM) name(t *store.Transfer) string {
	return "move/" + hex.EncodeToString(t.Contract)
}

func (m *moveTransferVM) movements(ctx context.Context, x *AccountExtractor, events []Event) ([]vmMovement, error) {
	type leg struct {
		event    int
		owner    []byte
		meta     string
		amount   string
		consumed bool
	}
	var withdraws []*leg
	var out []vmMovement
	objOf := func(meta string) ([]byte, error) {
		obj, err := objectAddr(meta)
		if err != nil {
			return nil, fmt.Errorf("metadata address %.80q", meta)
		}
		return obj, nil
	}
	var moves []map[string]string
	var idx []int
	for i, ev := range events {
		if ev.Type == eventMove {
			moves = append(moves, eventAttrs(ev))
			idx = append(idx, i)
		}
	}
	owner := func(j int, tag string) ([]byte, bool) {
		if j+1 >= len(moves) || moves[j+1]["type_tag"] != tag {
			return nil, false
		}
		var o struct {
			Owner string `json:"owner"`
		}
		if json.Unmarshal([]byte(moves[j+1]["data"]), &o) != nil || o.Owner == "" {
			return nil, false
		}
		return x.ParseAddress(o.Owner)
	}
	for j := 0; j < len(moves); j++ {
		tag := moves[j]["type_tag"]
		switch tag {
		case "0x1::fungible_asset::WithdrawEvent", "0x1::fungible_asset::DepositEvent":
			var fa struct {
				MetadataAddr string `json:"metadata_addr"`
				Amount       string `json:"amount"`
			}
			if json.Unmarshal([]byte(moves[j]["data"]), &fa) != nil {
				return nil, fmt.Errorf("%s data", tag)
			}
			if _, ok := new(big.Int).SetString(fa.Amount, 10); !ok {
				return nil, fmt.Errorf("%s amount %.40q", tag, fa.Amount)
			}
			metaB, err := objectAddr(fa.MetadataAddr)
			if err != nil {
				return nil, fmt.Errorf("%s metadata %.80q", tag, fa.MetadataAddr)
			}
			meta := hex.EncodeToString(metaB)
			if tag == "0x1::fungible_asset::WithdrawEvent" {
				o, ok := owner(j, "0x1::fungible_asset::WithdrawOwnerEvent")
				if !ok {
					continue
				}
				withdraws = append(withdraws, &leg{event: idx[j], owner: o, meta: meta, amount: fa.Amount})
				j++
				continue
			}
			o, ok := owner(j, "0x1::fungible_asset::DepositOwnerEvent")
			if !ok {
				continue
			}
			t := store.Transfer{Kind: store.TransferMove, To: o, Contract: metaB, Amount: fa.Amount}
			at := idx[j]
			for _, w := range withdraws {
				if !w.consumed && w.meta == meta && w.amount == fa.Amount {
					w.consumed, t.From, at = true, w.owner, w.event
					break
				}
			}
			out = append(out, vmMovement{event: at, echo: true, t: t})
			j++
		case "0x1::object::TransferEvent":
			var te struct {
				Object string `json:"object"`
				From   string `json:"from"`
				To     string `json:"to"`
			}
			if json.Unmarshal([]byte(moves[j]["data"]), &te) != nil {
				return nil, fmt.Errorf("%s data", tag)
			}
			obj, err := objectAddr(te.Object)
			from, okF := x.ParseAddress(te.From)
			to, okT := x.ParseAddress(te.To)
			if err != nil || !okF || !okT || te.From == "" || te.To == "" {
				continue
			}
			out = append(out, vmMovement{event: idx[j], t: store.Transfer{Kind: store.TransferMoveNFT, From: from, To: to,
				Denom: "move/" + hex.EncodeToString(obj), Contract: obj, Amount: "1", TokenID: "0x" + hex.EncodeToString(obj)}})
		}
	}
	for _, w := range withdraws {
		if w.consumed {
			continue
		}
		obj, err := objOf("0x" + w.meta)
		if err != nil {
			return nil, err
		}
		out = append(out, vmMovement{event: w.event, echo: true, t: store.Transfer{Kind: store.TransferMove, From: w.owner,
			Contract: obj, Amount: w.amount}})
	}
	return out, nil
}
