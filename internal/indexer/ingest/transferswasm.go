package ingest

import (
	"context"
	"math/big"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// WasmTransfers reads the movements of a Wasm chain: the CW20 (transfer, send, transfer_from,
// send_from, mint, burn, burn_from) and CW721 (transfer_nft, send_nft, mint, burn) actions of
// a tx's `wasm` events, which the contracts emit with their _contract_address. A CW20 token is
// named cw20:<contract bech32>.
func WasmTransfers() TransferVM { return wasmTransferVM{} }

type wasmTransferVM struct{}

func (wasmTransferVM) bind(*Pipeline) error { return nil }

func (wasmTransferVM) name(t *store.Transfer) string { return t.Denom }

func (wasmTransferVM) movements(_ context.Context, x *AccountExtractor, events []Event) ([]vmMovement, error) {
	var out []vmMovement
	for i, ev := range events {
		if ev.Type != eventWasm {
			continue
		}
		a := eventAttrs(ev)
		contractAddr := a["_contract_address"]
		contract, ok := x.ParseAddress(contractAddr)
		if !ok || contractAddr == "" {
			continue
		}
		parse := func(k string) ([]byte, bool) {
			if a[k] == "" {
				return nil, false
			}
			return x.ParseAddress(a[k])
		}
		t := store.Transfer{Contract: contract}
		var okFrom, okTo bool
		_, nft := a["token_id"]
		switch a["action"] {
		case "transfer_nft", "send_nft":
			t.From, okFrom = parse("sender")
			t.To, okTo = parse("recipient")
			if !okFrom || !okTo || !nft {
				continue
			}
		case "transfer", "send", "transfer_from", "send_from":
			t.From, okFrom = parse("from")
			t.To, okTo = parse("to")
			if !okFrom || !okTo || nft {
				continue
			}
		case "mint":
			if nft {
				t.To, okTo = parse("owner")
			} else {
				t.To, okTo = parse("to")
			}
			if !okTo {
				continue
			}
		case "burn", "burn_from":
			if nft {
				t.From, okFrom = parse("sender")
			} else {
				t.From, okFrom = parse("from")
			}
			if !okFrom {
				continue
			}
		default:
			continue
		}
		if nft {
			t.Kind, t.Amount, t.TokenID = store.TransferCW721, "1", a["token_id"]
			t.Denom = "cw721:" + contractAddr
		} else {
			amt, ok := new(big.Int).SetString(a["amount"], 10)
			if !ok || amt.Sign() < 0 {
				continue
			}
			t.Kind, t.Amount, t.Denom = store.TransferCW20, amt.String(), "cw20:"+contractAddr
		}
		if _, err := address.FromBech32(x.prefix, contractAddr); err != nil {
			continue // a contract is bech32 on a Wasm chain; anything else is no token event
		}
		out = append(out, vmMovement{event: i, t: t})
	}
	return out, nil
}

func (wasmTransferVM) bankDenom(d string) string { return d }
