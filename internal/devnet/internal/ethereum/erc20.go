package ethereum

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ERC20ABI is the ERC-20 interface (EIP-20) the token answers.
var ERC20ABI = MustABI(`[
{"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"symbol","stateMutability":"view","inputs":[],"outputs":[{"type":"string"}]},
{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"type":"uint8"}]},
{"type":"function","name":"totalSupply","stateMutability":"view","inputs":[],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"account","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"allowance","stateMutability":"view","inputs":[{"name":"owner","type":"address"},{"name":"spender","type":"address"}],"outputs":[{"type":"uint256"}]},
{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"transferFrom","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"outputs":[{"type":"bool"}]}
]`)

// Event topics of EIP-20.
var (
	TopicTransfer = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	TopicApproval = crypto.Keccak256Hash([]byte("Approval(address,address,uint256)"))
)

// ERC20 is a plain ERC-20 token with balances given at genesis.
type ERC20 struct {
	Address  common.Address
	Name     string
	Symbol   string
	Decimals uint8
	Genesis  map[common.Address]*big.Int
}

var _ Genesis = (*ERC20)(nil)

// InitGenesis mints the genesis balances.
func (t *ERC20) InitGenesis(x *Exec) error {
	for _, a := range sortedKeys(t.Genesis) {
		t.mint(x, a, t.Genesis[a])
	}
	return nil
}

func balKey(a common.Address) string { return "b/" + a.Hex() }

func allowKey(owner, spender common.Address) string { return "a/" + owner.Hex() + "/" + spender.Hex() }

// BalanceOf reads a holder's balance from a state.
func (t *ERC20) BalanceOf(st *State, a common.Address) *big.Int { return st.Big(t.Address, balKey(a)) }

func (t *ERC20) mint(x *Exec, to common.Address, v *big.Int) {
	x.SetBig(t.Address, balKey(to), new(big.Int).Add(t.BalanceOf(x.st, to), v))
	x.SetBig(t.Address, "supply", new(big.Int).Add(x.st.Big(t.Address, "supply"), v))
}

// Move transfers v from one holder to another with its Transfer log; false when from lacks it.
func (t *ERC20) Move(x *Exec, from, to common.Address, v *big.Int) bool {
	fb := t.BalanceOf(x.st, from)
	if fb.Cmp(v) < 0 {
		return false
	}
	x.SetBig(t.Address, balKey(from), fb.Sub(fb, v))
	x.SetBig(t.Address, balKey(to), new(big.Int).Add(t.BalanceOf(x.st, to), v))
	x.Emit(t.Address, []common.Hash{TopicTransfer, AddrTopic(from), AddrTopic(to)}, common.BigToHash(v).Bytes())
	return true
}

// Call implements Contract.
func (t *ERC20) Call(x *Exec, from common.Address, _ *big.Int, input []byte) ([]byte, error) {
	m, args, err := Method(ERC20ABI, input)
	if err != nil {
		return nil, err
	}
	var out []any
	switch m.Name {
	case "name":
		out = []any{t.Name}
	case "symbol":
		out = []any{t.Symbol}
	case "decimals":
		out = []any{t.Decimals}
	case "totalSupply":
		out = []any{x.st.Big(t.Address, "supply")}
	case "balanceOf":
		out = []any{t.BalanceOf(x.st, args[0].(common.Address))}
	case "allowance":
		out = []any{x.st.Big(t.Address, allowKey(args[0].(common.Address), args[1].(common.Address)))}
	case "transfer":
		x.UseGas(12_000)
		if !t.Move(x, from, args[0].(common.Address), args[1].(*big.Int)) {
			return nil, ErrReverted
		}
		out = []any{true}
	case "approve":
		x.UseGas(6_000)
		sp, v := args[0].(common.Address), args[1].(*big.Int)
		x.SetBig(t.Address, allowKey(from, sp), v)
		x.Emit(t.Address, []common.Hash{TopicApproval, AddrTopic(from), AddrTopic(sp)}, common.BigToHash(v).Bytes())
		out = []any{true}
	case "transferFrom":
		x.UseGas(15_000)
		owner, to, v := args[0].(common.Address), args[1].(common.Address), args[2].(*big.Int)
		if owner != from {
			al := x.st.Big(t.Address, allowKey(owner, from))
			if al.Cmp(v) < 0 {
				return nil, ErrReverted
			}
			x.SetBig(t.Address, allowKey(owner, from), al.Sub(al, v))
		}
		if !t.Move(x, owner, to, v) {
			return nil, ErrReverted
		}
		out = []any{true}
	}
	return m.Outputs.Pack(out...)
}
