package engine

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

func TestStoreVersions(t *testing.T) {
	s := newStore()
	s.set("m/a", 1, []byte("1"))
	s.set("m/b", 1, []byte("x"))
	s.set("m/a", 3, []byte("3"))
	s.set("m/b", 4, nil)
	cases := []struct {
		key    string
		height int64
		want   string
		ok     bool
	}{
		{"m/a", 0, "", false}, {"m/a", 1, "1", true}, {"m/a", 2, "1", true}, {"m/a", 3, "3", true}, {"m/a", 9, "3", true},
		{"m/b", 3, "x", true}, {"m/b", 4, "", false},
	}
	for _, c := range cases {
		v, ok := s.get(c.key, c.height)
		if ok != c.ok || string(v) != c.want {
			t.Errorf("get(%s,%d) = %q %v, want %q %v", c.key, c.height, v, ok, c.want, c.ok)
		}
	}
}

func TestOverlayIterateAndRollback(t *testing.T) {
	s := newStore()
	for i, k := range []string{"p/a", "p/c", "p/e", "q/z"} {
		s.set(k, 1, []byte(fmt.Sprint(i)))
	}
	base := newOverlay(heightView{s, 1})
	o := newOverlay(base)
	o.set("p/b", []byte("new"))
	o.del("p/c")
	o.set("p/e", []byte("changed"))
	var got []string
	o.iterate("p/", func(k string, v []byte) bool { got = append(got, k+"="+string(v)); return true })
	if strings.Join(got, " ") != "p/a=0 p/b=new p/e=changed" {
		t.Fatalf("iterate: %v", got)
	}
	// dropping the overlay leaves the parent untouched
	var parent []string
	base.iterate("p/", func(k string, v []byte) bool { parent = append(parent, k); return true })
	if strings.Join(parent, " ") != "p/a p/c p/e" {
		t.Fatalf("parent changed: %v", parent)
	}
	o.commitTo(base)
	if _, ok := base.get("p/c"); ok {
		t.Fatal("delete not committed")
	}
}

func newTestChain(t *testing.T, kind Kind) *Chain {
	t.Helper()
	c, err := New(Config{ChainID: "test-1", Kind: kind, Seed: 1, NumAccounts: 3})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func send(t *testing.T, c *Chain, from, to int, amount string, gas uint64, extra ...proto.Message) []byte {
	t.Helper()
	k := c.Key(from)
	num, seq, _ := c.AccountState(k.Address())
	msgs := []proto.Message{&bankv1beta1.MsgSend{FromAddress: Bech32("init", k.Address()), ToAddress: c.Accounts()[to].Bech32,
		Amount: []*basev1beta1.Coin{{Denom: c.Config().FeeDenom, Amount: amount}}}}
	raw, err := SignDirect(c.ChainID(), k, num, seq, append(msgs, extra...), "", Fee{GasLimit: gas})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestDeliverOutcomes(t *testing.T) {
	huge := new(big.Int).Lsh(big.NewInt(1), 100).String()
	cases := []struct {
		name      string
		kind      Kind
		tx        func(c *Chain) []byte
		code      uint32
		codespace string
		log       string
		moved     bool
	}{
		{"send", KindCosmos, func(c *Chain) []byte { return send(t, c, 0, 1, "100", 200000) }, 0, "", "", true},
		{"insufficient funds rolls back", KindCosmos, func(c *Chain) []byte { return send(t, c, 0, 1, huge, 200000) }, 5, "sdk", "failed to execute message; message index: 0: spendable balance", false},
		{"out of gas", KindCosmos, func(c *Chain) []byte { return send(t, c, 0, 1, "100", 90000) }, 11, "sdk", "out of gas in location", false},
		{"second message fails, first rolls back", KindCosmos, func(c *Chain) []byte {
			bad := &bankv1beta1.MsgSend{FromAddress: c.Accounts()[0].Bech32, ToAddress: c.Accounts()[1].Bech32,
				Amount: []*basev1beta1.Coin{{Denom: "nope", Amount: "1"}}}
			return send(t, c, 0, 1, "100", 400000, bad)
		}, 5, "sdk", "failed to execute message; message index: 1:", false},
		{"multisend disabled on minievm", KindEVM, func(c *Chain) []byte {
			k := c.Key(0)
			num, seq, _ := c.AccountState(k.Address())
			ms := &bankv1beta1.MsgMultiSend{Inputs: []*bankv1beta1.Input{{Address: c.Accounts()[0].Bech32, Coins: []*basev1beta1.Coin{{Denom: "GAS", Amount: "1"}}}},
				Outputs: []*bankv1beta1.Output{{Address: c.Accounts()[1].Bech32, Coins: []*basev1beta1.Coin{{Denom: "GAS", Amount: "1"}}}}}
			raw, _ := SignDirect(c.ChainID(), k, num, seq, []proto.Message{ms}, "", Fee{GasLimit: 300000})
			return raw
		}, 1, "undefined", "failed to execute message; message index: 0: rpc error: code = Unimplemented desc = not supported", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestChain(t, tc.kind)
			to := c.Accounts()[1].Addr
			q0, _ := c.Query(0)
			before := q0.Balance(to, c.Config().FeeDenom)
			if r := c.BroadcastTxSync(tc.tx(c)); r.Code != 0 {
				t.Fatalf("check: %+v", r)
			}
			b, err := c.ProduceBlock()
			if err != nil {
				t.Fatal(err)
			}
			r := b.Results[0]
			if r.Code != tc.code || r.Codespace != tc.codespace || !strings.HasPrefix(r.Log, tc.log) {
				t.Fatalf("result %d %q %q", r.Code, r.Codespace, r.Log)
			}
			q, _ := c.Query(0)
			moved := q.Balance(to, c.Config().FeeDenom).Cmp(before) != 0
			if moved != tc.moved {
				t.Fatalf("balance moved=%v", moved)
			}
			// failed txs keep only the ante events, and the sequence still advances
			if tc.code != 0 {
				for _, e := range r.Events {
					if e.Type != "tx" {
						t.Fatalf("failed tx kept event %s", e.Type)
					}
				}
			} else if r.Events[3].Type != "message" || r.Events[3].Attributes[0].Key != "action" {
				t.Fatalf("events %+v", r.Events)
			}
			if _, seq, _ := c.AccountState(c.Key(0).Address()); seq != 1 {
				t.Fatalf("sequence %d", seq)
			}
		})
	}
}

// TestHeightViews: queries at a past height see that height's state.
func TestHeightViews(t *testing.T) {
	c := newTestChain(t, KindCosmos)
	to := c.Accounts()[2].Addr
	c.BroadcastTxSync(send(t, c, 0, 2, "1000", 200000))
	if _, err := c.ProduceBlock(); err != nil {
		t.Fatal(err)
	}
	q1, _ := c.Query(1)
	q2, _ := c.Query(2)
	if d := new(big.Int).Sub(q2.Balance(to, "umin"), q1.Balance(to, "umin")); d.Int64() != 1000 {
		t.Fatalf("difference %s", d)
	}
	if _, err := c.Query(3); err == nil {
		t.Fatal("future height readable")
	}
	var _ sim.Query = q1
}

type panicky struct{ BankTraffic }

func (panicky) Name() string { return "panicky" }
func (panicky) Handlers() map[string]sim.Handler {
	return map[string]sim.Handler{"/cosmos.bank.v1beta1.MsgMultiSend": func(sim.Env, proto.Message) error { panic("boom") }}
}
func (panicky) Traffic(*rand.Rand, sim.Query, []sim.Account) []sim.Intent { panic("boom") }

// TestPanicsFailTheTx: a panicking handler fails its tx with baseapp's panic code, and a
// panicking traffic generator only loses its traffic; the chain goes on.
func TestPanicsFailTheTx(t *testing.T) {
	c, err := New(Config{ChainID: "panic-1", Kind: KindCosmos, NumAccounts: 2, Modules: []sim.Module{panicky{}}})
	if err != nil {
		t.Fatal(err)
	}
	k := c.Key(0)
	num, seq, _ := c.AccountState(k.Address())
	ms := &bankv1beta1.MsgMultiSend{Inputs: []*bankv1beta1.Input{{Address: c.Accounts()[0].Bech32}}}
	raw, _ := SignDirect(c.ChainID(), k, num, seq, []proto.Message{ms}, "", Fee{GasLimit: 300000})
	if r := c.BroadcastTxSync(raw); r.Code != 0 {
		t.Fatalf("check %+v", r)
	}
	b, err := c.ProduceBlock()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Results) != 1 || b.Results[0].Code != 111222 {
		t.Fatalf("results %+v", b.Results)
	}
	if _, err := c.ProduceBlock(); err != nil || c.Height() != 3 {
		t.Fatalf("chain stopped: %v", err)
	}
}
