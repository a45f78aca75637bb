package opinit

import (
	"math/big"
	"math/rand/v2"
	"strconv"

	"google.golang.org/protobuf/proto"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Traffic configures seeded bridge activity: deposits on L1 (Denoms) or withdrawals of
// deposited tokens on L2.
type Traffic struct {
	Rate   float64 // chance per block of one deposit / withdrawal (0 disables)
	Denoms []string
}

func pickAmount(rng *rand.Rand, bal *big.Int) (int64, bool) {
	if bal.Cmp(big.NewInt(2)) < 0 {
		return 0, false
	}
	limit := new(big.Int).Div(bal, big.NewInt(100))
	if limit.Sign() == 0 {
		limit = big.NewInt(1)
	}
	if !limit.IsInt64() || limit.Int64() > 1_000_000 {
		limit = big.NewInt(1_000_000)
	}
	return 1 + rng.Int64N(limit.Int64()), true
}

// Traffic implements sim.Module: now and then a deposit of a random account to its own
// address on a random bridge's rollup.
func (h *Host) Traffic(rng *rand.Rand, state sim.Query, accounts []sim.Account) []sim.Intent {
	t := h.cfg.Traffic
	if t == nil || t.Rate <= 0 || len(accounts) == 0 || len(h.cfg.Bridges) == 0 || len(t.Denoms) == 0 || rng.Float64() >= t.Rate {
		return nil
	}
	si := rng.IntN(len(accounts))
	b := h.cfg.Bridges[rng.IntN(len(h.cfg.Bridges))]
	d := t.Denoms[rng.IntN(len(t.Denoms))]
	amt, ok := pickAmount(rng, state.Balance(accounts[si].Addr, d))
	if !ok {
		return nil
	}
	return []sim.Intent{{Signer: si, Msgs: []proto.Message{&ophostv1.MsgInitiateTokenDeposit{
		Sender: accounts[si].Bech32, BridgeId: b.ID, To: accounts[si].Bech32,
		Amount: &basev1beta1.Coin{Denom: d, Amount: strconv.FormatInt(amt, 10)},
	}}}}
}

// Traffic implements sim.Module: now and then a withdrawal of bridged tokens back to the
// holder's own L1 address.
func (c *Child) Traffic(rng *rand.Rand, state sim.Query, accounts []sim.Account) []sim.Intent {
	t := c.cfg.Traffic
	if t == nil || t.Rate <= 0 || len(accounts) == 0 || rng.Float64() >= t.Rate {
		return nil
	}
	var l2s []string
	state.Store(ChildStore).Iterate("denomPair/", func(k string, _ []byte) bool {
		l2s = append(l2s, k[len("denomPair/"):])
		return true
	})
	if len(l2s) == 0 {
		return nil
	}
	si := rng.IntN(len(accounts))
	d := l2s[rng.IntN(len(l2s))]
	amt, ok := pickAmount(rng, state.Balance(accounts[si].Addr, d))
	if !ok {
		return nil
	}
	return []sim.Intent{{Signer: si, Msgs: []proto.Message{&opchildv1.MsgInitiateTokenWithdrawal{
		Sender: accounts[si].Bech32, To: bech32(c.cfg.L1Prefix, accounts[si].Addr),
		Amount: &basev1beta1.Coin{Denom: d, Amount: strconv.FormatInt(amt, 10)},
	}}}}
}
