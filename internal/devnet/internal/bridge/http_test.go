package bridge_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/denom"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// TestHTTPRelayOnEngine relays over the chains' public endpoints only (CometBFT RPC
// block_results + broadcast_tx_sync, REST accounts), signing with txcodec, as an
// out-of-process relayer and executor would.
func TestHTTPRelayOnEngine(t *testing.T) {
	const seed = 5
	relKey, exKey, _ := bridge.BotKeys(seed, false)
	chains := defaultChains[:3] // L1, minievm, minimove
	var specs []bridge.ChainSpec
	for _, c := range chains {
		s := bridge.ChainSpec{ChainID: c.ChainID, Kind: c.Kind, Prefix: "init"}
		if c.Kind == engine.KindL1 {
			s.NativeDenoms = []string{"uinit"}
		} else {
			s.Executor = engine.Bech32("init", exKey.Address())
		}
		specs = append(specs, s)
	}
	wiring, err := bridge.Wire(specs, bridge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nw := startEngineNet(t, seed, 2, chains, func(id, fee string) ([]sim.Module, []engine.GenesisAccount) {
		cm, _ := wiring.Chain(id)
		return cm.Modules(), bridge.BotAccounts(fee, relKey, exKey)
	})
	toTxcodec := func(k *engine.Key) *txcodec.PrivKey {
		pk, err := txcodec.NewPrivKey(txcodec.EthSecp256k1, k.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		return pk
	}
	var eps []relayer.Endpoint
	for _, c := range nw.Chains() {
		rpc, err := comet.New(c.Endpoints.RPC)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := cosmosrest.New(c.Endpoints.REST)
		if err != nil {
			t.Fatal(err)
		}
		sub := &relayer.HTTPSubmitter{ChainID: c.Spec.ChainID, Prefix: "init", REST: rest, RPC: rpc}
		if err := sub.AddKey(toTxcodec(relKey)); err != nil {
			t.Fatal(err)
		}
		if err := sub.AddKey(toTxcodec(exKey)); err != nil {
			t.Fatal(err)
		}
		eps = append(eps, relayer.Endpoint{Chain: &relayer.Comet{ID: c.Spec.ChainID, Client: rpc, Submit: sub.Submit},
			Relayer: engine.Bech32("init", relKey.Address()), Executor: engine.Bech32("init", exKey.Address())})
	}
	rel, err := relayer.New(wiring.RelayerConfig(eps))
	if err != nil {
		t.Fatal(err)
	}
	l1, _ := nw.Chain("initia-devnet-1")
	user := l1.Chain.Key(0)
	ua := engine.Bech32("init", user.Address())
	num, seq, _ := l1.Chain.AccountState(user.Address())
	raw, _ := engine.SignDirect(l1.Spec.ChainID, user, num, seq, []proto.Message{
		&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-1", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "12"},
			Sender: ua, Receiver: ua, TimeoutTimestamp: uint64(time.Now().Add(time.Hour).UnixNano())},
		&ophostv1.MsgInitiateTokenDeposit{Sender: ua, BridgeId: 1, To: ua, Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "34"}},
	}, "", engine.Fee{GasLimit: 2_000_000})
	if res := l1.Chain.BroadcastTxSync(raw); res.Code != 0 {
		t.Fatal(res.Log)
	}
	ctx := context.Background()
	for i := 0; i < 6; i++ {
		if err := nw.ProduceBlock(); err != nil {
			t.Fatal(err)
		}
		if err := rel.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if p, a, d := rel.Pending(); p+a+d != 0 {
		t.Fatalf("pending %d %d %d", p, a, d)
	}
	mv, _ := nw.Chain("minimove-devnet-1")
	evm, _ := nw.Chain("minievm-devnet-1")
	qm, _ := mv.Chain.Query(mv.Chain.Height())
	qe, _ := evm.Chain.Query(evm.Chain.Height())
	if got := qm.Balance(user.Address(), "ibc/"+denom.IBCHash("transfer/channel-0/uinit")); got.Int64() != 12 {
		t.Errorf("minimove voucher %s", got)
	}
	if got := qe.Balance(user.Address(), opinit.L2Denom(1, "uinit")); got.Int64() != 34 {
		t.Errorf("minievm deposit %s", got)
	}
}
