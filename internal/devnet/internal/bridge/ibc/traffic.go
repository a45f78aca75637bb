package ibc

import (
	"math/big"
	"math/rand/v2"
	"strconv"

	"google.golang.org/protobuf/proto"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Traffic configures the module's own seeded transfers, so a devnet shows cross-chain
// activity without a router driving it.
type Traffic struct {
	// Rate is the chance per block of one transfer (0 disables the traffic).
	Rate float64
	// Denoms are the native denoms accounts send; vouchers they hold are sent back too.
	Denoms []string
	// Forwards are two-hop routes through the counterparty of a local channel, sent with
	// packet-forward memos.
	Forwards []ForwardRoute
}

// ForwardRoute is a two-hop path: out through Channel, then on through NextChannel of
// the counterparty to a chain whose accounts use FinalPrefix.
type ForwardRoute struct {
	Channel     string
	NextChannel string
	FinalPrefix string
}

// Traffic implements sim.Module: with the configured rate, one MsgTransfer of a random
// account (a native denom or a voucher it holds, sometimes forwarded over two hops).
// It is a pure function of rng and state.
func (m *Module) Traffic(rng *rand.Rand, state sim.Query, accounts []sim.Account) []sim.Intent {
	// ICS-20 draws first, so turning ICS-721 on leaves the fungible traffic as it was.
	out := m.transferTraffic(rng, state, accounts)
	return append(out, m.nftTraffic(rng, state, accounts)...)
}

func (m *Module) transferTraffic(rng *rand.Rand, state sim.Query, accounts []sim.Account) []sim.Intent {
	t := m.cfg.Traffic
	if t == nil || t.Rate <= 0 || len(accounts) == 0 || rng.Float64() >= t.Rate {
		return nil
	}
	kv := state.Store(StoreName)
	var chs []Channel
	for _, ch := range channels(kv) {
		if !isNFTPort(ch.PortID) {
			chs = append(chs, ch)
		}
	}
	if len(chs) == 0 {
		return nil
	}
	si := rng.IntN(len(accounts))
	acct := accounts[si]
	ch := chs[rng.IntN(len(chs))]
	// candidate denoms: natives, plus vouchers this account holds
	cands := append([]string(nil), t.Denoms...)
	for _, tr := range traces(kv) {
		cands = append(cands, tr.IBCDenom())
	}
	if len(cands) == 0 {
		return nil
	}
	d := cands[rng.IntN(len(cands))]
	bal := state.Balance(acct.Addr, d)
	if bal.Cmp(big.NewInt(2)) < 0 {
		return nil
	}
	limit := new(big.Int).Div(bal, big.NewInt(100))
	if limit.Sign() == 0 {
		limit = big.NewInt(1)
	}
	if !limit.IsInt64() || limit.Int64() > 1_000_000 {
		limit = big.NewInt(1_000_000)
	}
	amount := 1 + rng.Int64N(limit.Int64())
	receiver := accounts[rng.IntN(len(accounts))]
	msg := &transferv1.MsgTransfer{
		SourcePort: ch.PortID, SourceChannel: ch.ChannelID,
		Token:  &basev1beta1.Coin{Denom: d, Amount: strconv.FormatInt(amount, 10)},
		Sender: acct.Bech32, Receiver: bech32(prefixOr(ch.CounterpartyPrefix, state.AddressPrefix()), receiver.Addr),
		TimeoutHeight: &clientv1.Height{RevisionNumber: RevisionNumber(ch.CounterpartyChainID),
			RevisionHeight: getUint(kv, clientHeightKey(ch.ClientID)) + 100_000},
	}
	if len(t.Forwards) > 0 && rng.IntN(3) == 0 {
		f := t.Forwards[rng.IntN(len(t.Forwards))]
		if fch, ok := getChannel(kv, "transfer", f.Channel); ok {
			msg.SourceChannel = fch.ChannelID
			msg.Receiver = "pfm"
			msg.TimeoutHeight.RevisionNumber = RevisionNumber(fch.CounterpartyChainID)
			msg.TimeoutHeight.RevisionHeight = getUint(kv, clientHeightKey(fch.ClientID)) + 100_000
			msg.Memo = `{"forward":{"receiver":"` + bech32(prefixOr(f.FinalPrefix, state.AddressPrefix()), receiver.Addr) +
				`","port":"transfer","channel":"` + f.NextChannel + `"}}`
		}
	}
	return []sim.Intent{{Signer: si, Msgs: []proto.Message{msg}}}
}

func prefixOr(p, d string) string {
	if p != "" {
		return p
	}
	return d
}
