package ingest

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/jsonx"
	"github.com/rollgate/rollgate/internal/store"
)

// EVMTransfers reads the movements of an EVM chain: the ERC-20 and ERC-721 Transfer logs of a
// tx's `evm` events (attribute `log`, as minievm emits the receipt's logs). minievm keeps bank
// balances in ERC-20 contracts, so every bank movement comes with the log of its contract;
// those logs only lend their contract to the bank movement. A token is named evm/<hex>, the
// bank denom minievm gives an ERC-20 it did not create from a bank coin.
func EVMTransfers() TransferVM { return evmTransferVM{} }

type evmTransferVM struct{}

func (evmTransferVM) bind(*Pipeline) error { return nil }

func (evmTransferVM) name(t *store.Transfer) string { return t.Denom }

func (evmTransferVM) movements(_ context.Context, _ *AccountExtractor, events []Event) ([]vmMovement, error) {
	var out []vmMovement
	for i, ev := range events {
		if ev.Type != eventEVM {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key != "log" {
				continue
			}
			var l struct {
				Address string   `json:"address"`
				Topics  []string `json:"topics"`
				Data    string   `json:"data"`
			}
			if jsonx.Unmarshal([]byte(a.Value), &l) != nil || (len(l.Topics) != 3 && len(l.Topics) != 4) ||
				!strings.EqualFold(l.Topics[0], transferTopic) {
				continue
			}
			contract, err := address.ParseHex(l.Address)
			if err != nil || len(contract) != 20 {
				continue
			}
			from, err := topicAddress(l.Topics[1])
			if err != nil {
				return nil, fmt.Errorf("a Transfer log of %s: %w", l.Address, err)
			}
			to, err := topicAddress(l.Topics[2])
			if err != nil {
				return nil, fmt.Errorf("a Transfer log of %s: %w", l.Address, err)
			}
			t := store.Transfer{From: from, To: to, Contract: contract, Denom: "evm/" + hex.EncodeToString(contract)}
			data := strings.TrimPrefix(strings.TrimPrefix(l.Data, "0x"), "0X")
			if len(l.Topics) == 3 {
				amount, ok := new(big.Int).SetString(data, 16)
				if data == "" {
					amount, ok = new(big.Int), true
				}
				if !ok {
					return nil, fmt.Errorf("a Transfer log of %s with data %.80q", l.Address, l.Data)
				}
				t.Kind, t.Amount = store.TransferERC20, amount.String()
			} else {
				if data != "" {
					continue // not ERC-721: four topics and data
				}
				id, ok := new(big.Int).SetString(strings.TrimPrefix(strings.ToLower(l.Topics[3]), "0x"), 16)
				if !ok {
					continue
				}
				t.Kind, t.Amount, t.TokenID = store.TransferERC721, "1", id.String()
			}
			out = append(out, vmMovement{event: i, echo: t.TokenID == "", t: t})
		}
	}
	return out, nil
}

// bankDenom writes an evm/<hex> denom with lowercase hex, as the movements read from logs
// name it, so one token has one name whichever event reported it.
func (evmTransferVM) bankDenom(d string) string {
	if len(d) == 44 && strings.HasPrefix(d, "evm/") {
		return strings.ToLower(d)
	}
	return d
}
