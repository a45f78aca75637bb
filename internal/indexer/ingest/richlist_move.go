package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/rollgate/rollgate/internal/store"
)

// MoveMetadataSource reads a fungible asset's metadata (Move chains).
type MoveMetadataSource interface {
	// FAMetadata is the symbol and decimals of the 0x1::fungible_asset::Metadata resource at
	// the metadata object's address (latest state).
	FAMetadata(ctx context.Context, addr string) (symbol string, decimals int, err error)
}

// moveDenoms caches the denom of each metadata address: rollytics' rule is the lowercase
// symbol when decimals are 0 and the symbol is set (bank coins: the coin's denom), else
// move/<address hex without 0x>.
type moveDenoms struct {
	src MoveMetadataSource
	mu  sync.Mutex
	m   map[string]string
}

func (d *moveDenoms) denom(ctx context.Context, metadata string) (string, error) {
	// Event data drops leading zero digits of addresses ("0xc500…" for 0x0c500…): the key
	// and the move/<hex> name use the full 32 bytes, as the chain's bank names the asset.
	h := strings.ToLower(strings.TrimPrefix(metadata, "0x"))
	if len(h) < 64 {
		h = strings.Repeat("0", 64-len(h)) + h
	}
	key := "0x" + h
	d.mu.Lock()
	v, ok := d.m[key]
	d.mu.Unlock()
	if ok {
		return v, nil
	}
	sym, dec, err := d.src.FAMetadata(ctx, key)
	if err != nil {
		return "", fmt.Errorf("fungible asset metadata %s: %w", metadata, err)
	}
	v = "move/" + strings.TrimPrefix(key, "0x")
	if dec == 0 && sym != "" {
		v = strings.ToLower(sym)
	}
	d.mu.Lock()
	d.m[key] = v
	d.mu.Unlock()
	return v, nil
}

// moveChanges turns the fungible-asset events of a block's txs into balance changes, as
// rollytics' Move rich list does: a DepositEvent {metadata_addr, amount} immediately followed by
// its DepositOwnerEvent {owner} credits the owner, a WithdrawEvent / WithdrawOwnerEvent pair
// debits it.
func (r *richList) moveChanges(ctx context.Context, denoms *moveDenoms, height int64, results []TxResult) ([]store.BalanceChange, error) {
	var out []store.BalanceChange
	for _, res := range results {
		var moves []map[string]string
		for _, ev := range res.Events {
			if ev.Type != eventMove {
				continue
			}
			a := make(map[string]string, len(ev.Attributes))
			for _, at := range ev.Attributes {
				a[at.Key] = at.Value
			}
			moves = append(moves, a)
		}
		for i := 0; i+1 < len(moves); i++ {
			tag := moves[i]["type_tag"]
			sign := 0
			switch tag {
			case "0x1::fungible_asset::DepositEvent":
				sign = 1
			case "0x1::fungible_asset::WithdrawEvent":
				sign = -1
			default:
				continue
			}
			if moves[i+1]["type_tag"] != strings.TrimSuffix(tag, "Event")+"OwnerEvent" {
				continue
			}
			var fa struct {
				MetadataAddr string `json:"metadata_addr"`
				Amount       string `json:"amount"`
			}
			var own struct {
				Owner string `json:"owner"`
			}
			if json.Unmarshal([]byte(moves[i]["data"]), &fa) != nil || json.Unmarshal([]byte(moves[i+1]["data"]), &own) != nil {
				return nil, fmt.Errorf("height %d: %w: fungible asset event data", height, ErrInvalidData)
			}
			amt, ok := new(big.Int).SetString(fa.Amount, 10)
			acc, okAcc := r.p.builder.extractor.ParseAddress(own.Owner)
			if !ok || !okAcc || own.Owner == "" {
				return nil, fmt.Errorf("height %d: %w: fungible asset event amount %q owner %q", height, ErrInvalidData, fa.Amount, own.Owner)
			}
			denom, err := denoms.denom(ctx, fa.MetadataAddr)
			if err != nil {
				return nil, err
			}
			if sign < 0 {
				amt.Neg(amt)
			}
			out = append(out, store.BalanceChange{Denom: denom, Account: acc, Delta: amt})
			i++
		}
	}
	return out, nil
}
