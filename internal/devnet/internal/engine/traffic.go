package engine

import (
	"math/big"
	"math/rand/v2"
	"net/http"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// BankTraffic is a module with no state of its own that sends bank traffic on chains whose VM
// module does not: single and multi-message sends, now and then one that fails for lack of funds.
type BankTraffic struct {
	Denoms []string // denoms to send (the first is the fee denom)
	Max    int      // intents per block, default 2
}

// Name implements sim.Module.
func (b BankTraffic) Name() string { return "banktraffic" }

// InitGenesis implements sim.Module.
func (b BankTraffic) InitGenesis(sim.Env) error { return nil }

// Handlers implements sim.Module.
func (b BankTraffic) Handlers() map[string]sim.Handler { return nil }

// Routes implements sim.Module.
func (b BankTraffic) Routes(*http.ServeMux, sim.QueryAt) {}

// Traffic implements sim.Module.
func (b BankTraffic) Traffic(rng *rand.Rand, st sim.Query, accs []sim.Account) []sim.Intent {
	if len(accs) < 2 || len(b.Denoms) == 0 {
		return nil
	}
	max := b.Max
	if max <= 0 {
		max = 2
	}
	send := func(from, to int, denom string, amt *big.Int) proto.Message {
		return &bankv1beta1.MsgSend{FromAddress: accs[from].Bech32, ToAddress: accs[to].Bech32,
			Amount: []*basev1beta1.Coin{{Denom: denom, Amount: amt.String()}}}
	}
	other := func(i int) int {
		j := rng.IntN(len(accs) - 1)
		if j >= i {
			j++
		}
		return j
	}
	var out []sim.Intent
	for n := rng.IntN(max + 1); n > 0; n-- {
		a := rng.IntN(len(accs))
		d := b.Denoms[rng.IntN(len(b.Denoms))]
		amt := big.NewInt(int64(1 + rng.IntN(1_000_000)))
		switch r := rng.IntN(10); {
		case r < 7:
			out = append(out, sim.Intent{Signer: a, Msgs: []proto.Message{send(a, other(a), d, amt)}, GasLimit: 200000})
		case r < 9:
			out = append(out, sim.Intent{Signer: a, Msgs: []proto.Message{send(a, other(a), d, amt), send(a, other(a), b.Denoms[0], amt)},
				Memo: "multi-message send", GasLimit: 300000})
		default:
			over := new(big.Int).Add(st.Balance(accs[a].Addr, d), big.NewInt(1))
			out = append(out, sim.Intent{Signer: a, Msgs: []proto.Message{send(a, other(a), d, over)}, GasLimit: 200000})
		}
	}
	return out
}
