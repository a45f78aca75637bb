package bridge

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// TypeMsgSend is the bank send's message type.
const TypeMsgSend = "/cosmos.bank.v1beta1.MsgSend"

// BankSend is a same-chain send.
type BankSend struct {
	ChainID string `json:"chain_id"`
	Denom   string `json:"denom"`
}

// withDenoms keeps a bank send as it is: it converts nothing (one denom in and out).
func (b *BankSend) withDenoms(*Operation, string, string) {}

func (b *BankSend) hop() Hop {
	return Hop{Bridge: Bank, FromChainID: b.ChainID, ToChainID: b.ChainID, DenomIn: b.Denom, DenomOut: b.Denom, Label: "bank send"}
}

// bank is a send on one chain: the whole route when source and destination are one asset.
// It has no edges (the route engine answers such a request directly, SameChain).
type bank struct{ none }

func (bank) Name() string { return "" }

// SameChain is the one operation of a route that stays on chain c in asset a.
func SameChain(c *registry.Chain, a *registry.Asset, amount string) Operation {
	return Operation{BankSend: &BankSend{ChainID: c.ID, Denom: a.Denom}, AmountIn: amount, AmountOut: amount}
}

func (bank) Render(_ Env, _ Via, h Hop) Rendered {
	return Rendered{Op: Operation{BankSend: &BankSend{ChainID: h.FromChainID, Denom: h.DenomIn}, TxIndex: h.TxIndex,
		AmountIn: h.AmountIn, AmountOut: h.AmountOut}}
}

func (bank) Check(reg *registry.Registry, i int, op Operation, _ string) (string, error) {
	_, _, _, out, err := assets(reg, i, op)
	if err != nil {
		return "", err
	}
	return out.Path, nil
}

// erc20ABI is the ERC-20 transfer an EVM chain's send of a token is.
var erc20ABI = mustABI(`[{"type":"function","name":"transfer","stateMutability":"nonpayable","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"name":"","type":"bool"}]}]`)

func mustABI(s string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic(err) // constant input: a failure is a programming error caught by every test
	}
	return a
}

// Build is MsgSend on a Cosmos chain; on an EVM chain a native transfer, or the token's
// ERC-20 transfer.
func (bank) Build(l Leg) (Message, error) {
	b := l.Ops[0].BankSend
	if c, evm := onEVM(l); evm {
		a := c.Asset(b.Denom)
		if a.TokenContract == "" {
			return Message{EVM: &EVMCall{To: l.Receivers[0], Value: l.Amount.Dec()}}, nil
		}
		data, err := erc20ABI.Pack("transfer", common.HexToAddress(l.Receivers[0]), l.Amount.ToBig())
		if err != nil {
			return Message{}, fmt.Errorf("msgs: pack transfer: %w", err)
		}
		return Message{EVM: &EVMCall{To: a.TokenContract, Value: "0", Data: data}}, nil
	}
	if l.RouteLen != 1 {
		return Message{}, invalid("bank_send is only valid as the only operation")
	}
	return Message{TypeURL: TypeMsgSend, Cosmos: &bankv1beta1.MsgSend{FromAddress: l.Sender, ToAddress: l.Receivers[0],
		Amount: []*basev1beta1.Coin{{Denom: b.Denom, Amount: l.Amount.Dec()}}}}, nil
}
