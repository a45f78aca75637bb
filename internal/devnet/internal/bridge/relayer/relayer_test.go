package relayer_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math/big"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/denom"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	clientv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/core/client/v1"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
)

// adapter makes a simtest chain a relayer.Chain, the way the engine does in-process.
type adapter struct{ c *simtest.Chain }

func (a adapter) ChainID() string                             { return a.c.ID }
func (a adapter) LatestHeight(context.Context) (int64, error) { return a.c.Height(), nil }
func (a adapter) Broadcast(_ context.Context, signer string, msgs []proto.Message) error {
	a.c.Submit(signer, msgs...)
	return nil
}
func (a adapter) Block(_ context.Context, h int64) (relayer.Block, error) {
	b, _ := a.c.Block(h)
	out := relayer.Block{Height: b.Height, Time: b.Time}
	for _, tx := range b.Txs {
		if tx.Code == 0 {
			out.TxEvents = append(out.TxEvents, tx.Events)
		}
	}
	return out, nil
}

func acct(name string) []byte {
	s := sha256.Sum256([]byte(name))
	return s[:20]
}

func b32(prefix string, b []byte) string {
	s, _ := address.Bech32(prefix, b)
	return s
}

type net struct {
	t      *testing.T
	chains map[string]*simtest.Chain
	order  []string
	rel    *relayer.Relayer
	wiring *bridge.Network
}

const (
	l1ID    = "initia-devnet-1"
	moveID  = "minimove-devnet-1"
	wasmID  = "miniwasm-devnet-1"
	nobleID = "noble-devnet-1"
)

func newNet(t *testing.T) *net {
	t.Helper()
	specs := []bridge.ChainSpec{
		{ChainID: l1ID, Kind: bridge.KindL1, Prefix: "init", NativeDenoms: []string{"uinit"}},
		{ChainID: moveID, Kind: bridge.KindMinimove, Prefix: "init", NativeDenoms: []string{"umin"}, Executor: b32("init", acct("executor"))},
		{ChainID: wasmID, Kind: bridge.KindMiniwasm, Prefix: "init", Executor: b32("init", acct("executor"))},
		{ChainID: nobleID, Kind: bridge.KindExternal, Prefix: "noble", NativeDenoms: []string{"uusdc"}},
	}
	n := &net{t: t, chains: map[string]*simtest.Chain{}}
	withdrawals := opinit.ChildWithdrawals(func(id uint64) (sim.Query, error) {
		for _, c := range n.wiring.Chains {
			if c.BridgeID == id {
				return n.chains[c.Spec.ChainID].Query(), nil
			}
		}
		return nil, nil
	})
	w, err := bridge.Wire(specs, bridge.Options{Withdrawals: withdrawals, BridgeOperator: b32("init", acct("operator"))})
	if err != nil {
		t.Fatal(err)
	}
	n.wiring = w
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var eps []relayer.Endpoint
	for _, s := range specs {
		cm, _ := w.Chain(s.ChainID)
		c, err := simtest.Boot(s.ChainID, s.Prefix, start, cm.Modules()...)
		if err != nil {
			t.Fatal(err)
		}
		n.chains[s.ChainID] = c
		n.order = append(n.order, s.ChainID)
		eps = append(eps, relayer.Endpoint{Chain: adapter{c}, Relayer: b32(s.Prefix, acct("relayer")), Executor: s.Executor})
	}
	n.rel, err = relayer.New(w.RelayerConfig(eps))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// round produces one block on every chain, then lets the relayer step.
func (n *net) round() {
	for _, id := range n.order {
		n.chains[id].ProduceBlock(time.Second)
	}
	if err := n.rel.Step(context.Background()); err != nil {
		n.t.Fatal(err)
	}
}

// settle runs rounds until nothing is pending (or fails after max rounds).
func (n *net) settle(max int) {
	n.t.Helper()
	for i := 0; i < max; i++ {
		n.round()
		p, a, d := n.rel.Pending()
		if p == 0 && a == 0 && d == 0 {
			// one more round so submitted messages are executed and observed
			n.round()
			if p, a, d = n.rel.Pending(); p == 0 && a == 0 && d == 0 {
				return
			}
		}
	}
	p, a, d := n.rel.Pending()
	n.t.Fatalf("not settled: %d packets %d acks %d deposits", p, a, d)
}

// txsWith returns the successful txs of a chain that have an event of type typ.
func (n *net) txsWith(chain, typ string) []simtest.ExecResult {
	var out []simtest.ExecResult
	for _, b := range n.chains[chain].Blocks {
		for _, tx := range b.Txs {
			if tx.Code == 0 && len(simtest.FindEvents(tx.Events, typ)) > 0 {
				out = append(out, tx)
			}
		}
	}
	return out
}

func failedTxs(n *net) []string {
	var out []string
	for _, id := range n.order {
		for _, b := range n.chains[id].Blocks {
			for _, tx := range b.Txs {
				if tx.Code != 0 {
					out = append(out, id+": "+tx.Log)
				}
			}
		}
	}
	return out
}

func bal(c *simtest.Chain, addr []byte, d string) int64 { return c.Balance(addr, d).Int64() }

func nonMessage(evs []sim.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == "message" || e.Type == "coin_spent" || e.Type == "coin_received" || e.Type == "transfer" || e.Type == "coinbase" || e.Type == "burn" {
			continue
		}
		out = append(out, e.Type)
	}
	return out
}

func TestDirectTransferAndAck(t *testing.T) {
	n := newNet(t)
	l1, mv := n.chains[l1ID], n.chains[moveID]
	alice, bob := acct("alice"), acct("bob")
	l1.Fund(alice, "uinit", 1000)

	n.chains[l1ID].Submit(b32("init", alice), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "100"},
		Sender: b32("init", alice), Receiver: b32("init", bob), TimeoutTimestamp: uint64(l1.Time().Add(time.Hour).UnixNano()), Memo: "hi",
	})
	n.settle(10)
	if f := failedTxs(n); len(f) > 0 {
		t.Fatalf("failed txs: %v", f)
	}
	voucher := "ibc/" + denom.IBCHash("transfer/channel-0/uinit")
	if got := bal(mv, bob, voucher); got != 100 {
		t.Errorf("bob voucher %d", got)
	}
	if got := bal(l1, ibc.EscrowAddress("transfer", "channel-0"), "uinit"); got != 100 {
		t.Errorf("escrow %d", got)
	}
	if got := bal(l1, alice, "uinit"); got != 900 {
		t.Errorf("alice %d", got)
	}

	send := n.txsWith(l1ID, "send_packet")
	if len(send) != 1 {
		t.Fatalf("%d send txs", len(send))
	}
	sp := simtest.FindEvents(send[0].Events, "send_packet")[0]
	wantKeys := []string{"packet_data", "packet_data_hex", "packet_timeout_height", "packet_timeout_timestamp", "packet_sequence",
		"packet_src_port", "packet_src_channel", "packet_dst_port", "packet_dst_channel", "packet_channel_ordering", "packet_connection", "connection_id"}
	if diff := cmp.Diff(wantKeys, simtest.Keys(sp)); diff != "" {
		t.Errorf("send_packet keys: %s", diff)
	}
	wantData := `{"amount":"100","denom":"uinit","memo":"hi","receiver":"` + b32("init", bob) + `","sender":"` + b32("init", alice) + `"}`
	if got := simtest.Attr(sp, "packet_data"); got != wantData {
		t.Errorf("packet data %s", got)
	}
	if diff := cmp.Diff([]string{"send_packet", "ibc_transfer"}, nonMessage(send[0].Events)); diff != "" {
		t.Errorf("send tx events: %s", diff)
	}

	recv := n.txsWith(moveID, "recv_packet")
	if len(recv) != 1 {
		t.Fatalf("%d recv txs", len(recv))
	}
	if diff := cmp.Diff([]string{"recv_packet", "denomination_trace", "fungible_token_packet", "write_acknowledgement"}, nonMessage(recv[0].Events)); diff != "" {
		t.Errorf("recv tx events: %s", diff)
	}
	wa := simtest.FindEvents(recv[0].Events, "write_acknowledgement")[0]
	if simtest.Attr(wa, "packet_ack") != `{"result":"AQ=="}` || simtest.Attr(wa, "packet_ack_hex") != "7b22726573756c74223a2241513d3d227d" {
		t.Errorf("ack attrs %v", wa.Attributes)
	}
	wantWA := []string{"packet_data", "packet_data_hex", "packet_timeout_height", "packet_timeout_timestamp", "packet_sequence",
		"packet_src_port", "packet_src_channel", "packet_dst_port", "packet_dst_channel", "packet_ack", "packet_ack_hex",
		"packet_channel_ordering", "packet_connection", "connection_id"}
	if diff := cmp.Diff(wantWA, simtest.Keys(wa)); diff != "" {
		t.Errorf("write_acknowledgement keys: %s", diff)
	}
	dt := simtest.FindEvents(recv[0].Events, "denomination_trace")[0]
	if simtest.Attr(dt, "denom") != voucher || simtest.Attr(dt, "trace_hash") != strings.TrimPrefix(voucher, "ibc/") {
		t.Errorf("denomination_trace %v", dt.Attributes)
	}

	ack := n.txsWith(l1ID, "acknowledge_packet")
	if len(ack) != 1 {
		t.Fatalf("%d ack txs", len(ack))
	}
	if diff := cmp.Diff([]string{"acknowledge_packet", "fungible_token_packet", "fungible_token_packet"}, nonMessage(ack[0].Events)); diff != "" {
		t.Errorf("ack tx events: %s", diff)
	}
	ftp := simtest.FindEvents(ack[0].Events, "fungible_token_packet")
	if simtest.Attr(ftp[0], "acknowledgement") != `result:"\001" ` || simtest.Attr(ftp[1], "success") != "\x01" {
		t.Errorf("ack fungible_token_packet %v / %v", ftp[0].Attributes, ftp[1].Attributes)
	}
	wantAP := []string{"packet_timeout_height", "packet_timeout_timestamp", "packet_sequence", "packet_src_port", "packet_src_channel",
		"packet_dst_port", "packet_dst_channel", "packet_channel_ordering", "packet_connection", "connection_id"}
	if diff := cmp.Diff(wantAP, simtest.Keys(simtest.FindEvents(ack[0].Events, "acknowledge_packet")[0])); diff != "" {
		t.Errorf("acknowledge_packet keys: %s", diff)
	}

	// The voucher goes home: burn on the rollup, unescrow on L1.
	mv.Submit(b32("init", bob), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: voucher, Amount: "40"},
		Sender: b32("init", bob), Receiver: b32("init", alice), TimeoutTimestamp: uint64(mv.Time().Add(time.Hour).UnixNano()),
	})
	n.settle(10)
	if bal(mv, bob, voucher) != 60 || bal(l1, alice, "uinit") != 940 || bal(l1, ibc.EscrowAddress("transfer", "channel-0"), "uinit") != 60 {
		t.Errorf("after return: bob %d alice %d escrow %d", bal(mv, bob, voucher), bal(l1, alice, "uinit"), bal(l1, ibc.EscrowAddress("transfer", "channel-0"), "uinit"))
	}
	// REST: the voucher's trace is served.
	rec := get(t, mv, "/ibc/apps/transfer/v1/denom_traces/"+strings.TrimPrefix(voucher, "ibc/"))
	if rec != `{"denom_trace":{"path":"transfer/channel-0","base_denom":"uinit"}}` {
		t.Errorf("denom trace %s", rec)
	}
}

func forwardMemo(receiver, channel string, next string) string {
	m := `{"forward":{"receiver":"` + receiver + `","port":"transfer","channel":"` + channel + `"`
	if next != "" {
		m += `,"next":` + next
	}
	return m + `}}`
}

func TestMultiHopForward(t *testing.T) {
	n := newNet(t)
	l1, mv, noble := n.chains[l1ID], n.chains[moveID], n.chains[nobleID]
	carol, dave := acct("carol"), acct("dave")
	noble.Fund(carol, "uusdc", 500)
	// noble is L1's channel-2; minimove is L1's channel-0.
	noble.Submit(b32("noble", carol), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uusdc", Amount: "70"},
		Sender: b32("noble", carol), Receiver: "pfm", TimeoutTimestamp: uint64(noble.Time().Add(time.Hour).UnixNano()),
		Memo: forwardMemo(b32("init", dave), "channel-0", ""),
	})
	n.settle(15)
	if f := failedTxs(n); len(f) > 0 {
		t.Fatalf("failed txs: %v", f)
	}
	final := "ibc/" + denom.IBCHash("transfer/channel-0/transfer/channel-2/uusdc")
	if got := bal(mv, dave, final); got != 70 {
		t.Errorf("dave %d", got)
	}
	// L1: the hop-1 recv tx forwards and writes no ack.
	recv := n.txsWith(l1ID, "recv_packet")
	if len(recv) != 1 {
		t.Fatalf("%d L1 recv txs", len(recv))
	}
	if diff := cmp.Diff([]string{"recv_packet", "denomination_trace", "fungible_token_packet", "send_packet", "ibc_transfer"}, nonMessage(recv[0].Events)); diff != "" {
		t.Errorf("L1 recv tx: %s", diff)
	}
	pfmAddr := b32("init", ibc.ForwardReceiver("channel-2", b32("noble", carol)))
	ftp := simtest.FindEvents(recv[0].Events, "fungible_token_packet")[0]
	if simtest.Attr(ftp, "receiver") != pfmAddr || simtest.Attr(ftp, "memo") != "" {
		t.Errorf("hop-1 fungible_token_packet %v", ftp.Attributes)
	}
	var hop2 ibc.PacketData
	_ = json.Unmarshal([]byte(simtest.Attr(simtest.FindEvents(recv[0].Events, "send_packet")[0], "packet_data")), &hop2)
	if hop2.Sender != pfmAddr || hop2.Receiver != b32("init", dave) || hop2.Denom != "transfer/channel-2/uusdc" {
		t.Errorf("hop-2 data %+v", hop2)
	}
	// L1's ack tx for hop 2 writes hop 1's ack.
	ackTx := n.txsWith(l1ID, "acknowledge_packet")
	if len(ackTx) != 1 {
		t.Fatalf("%d L1 ack txs", len(ackTx))
	}
	if diff := cmp.Diff([]string{"acknowledge_packet", "write_acknowledgement"}, nonMessage(ackTx[0].Events)); diff != "" {
		t.Errorf("L1 ack tx: %s", diff)
	}
	wa := simtest.FindEvents(ackTx[0].Events, "write_acknowledgement")[0]
	if simtest.Attr(wa, "packet_dst_channel") != "channel-2" || simtest.Attr(wa, "packet_src_channel") != "channel-0" || simtest.Attr(wa, "packet_sequence") != "1" {
		t.Errorf("hop-1 ack %v", wa.Attributes)
	}
	// noble got the ack.
	if len(n.txsWith(nobleID, "acknowledge_packet")) != 1 {
		t.Error("origin never acknowledged")
	}
	if bal(noble, carol, "uusdc") != 430 {
		t.Errorf("carol %d", bal(noble, carol, "uusdc"))
	}
	_ = l1
}

func TestMultiHopNestedAndErrorRefund(t *testing.T) {
	n := newNet(t)
	l1, noble := n.chains[l1ID], n.chains[nobleID]
	carol := acct("carol")
	noble.Fund(carol, "uusdc", 500)
	// noble → L1 → miniwasm (L1 channel-1) with an invalid final receiver: the rollup
	// answers with an error ack, L1 burns its forwarded voucher and passes the error back,
	// noble refunds carol.
	noble.Submit(b32("noble", carol), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uusdc", Amount: "70"},
		Sender: b32("noble", carol), Receiver: "pfm", TimeoutTimestamp: uint64(noble.Time().Add(time.Hour).UnixNano()),
		Memo: forwardMemo("not-an-address", "channel-1", ""),
	})
	n.settle(15)
	if f := failedTxs(n); len(f) > 0 {
		t.Fatalf("failed txs: %v", f)
	}
	if got := bal(noble, carol, "uusdc"); got != 500 {
		t.Errorf("carol refunded to %d", got)
	}
	v := "ibc/" + denom.IBCHash("transfer/channel-2/uusdc")
	if got := bal(l1, ibc.EscrowAddress("transfer", "channel-1"), v); got != 0 {
		t.Errorf("L1 escrow keeps %d", got)
	}
	if got := bal(l1, ibc.ForwardReceiver("channel-2", b32("noble", carol)), v); got != 0 {
		t.Errorf("pfm address keeps %d", got)
	}
	// the rollup's recv renamed the failed callback events
	recv := n.txsWith(wasmID, "recv_packet")
	if len(recv) != 1 || len(simtest.FindEvents(recv[0].Events, "ibccallbackerror-fungible_token_packet")) != 1 {
		t.Fatalf("rollup recv: %v", recv)
	}
	errAck := simtest.FindEvents(n.txsWith(nobleID, "acknowledge_packet")[0].Events, "fungible_token_packet")
	if len(errAck) != 2 || simtest.Attr(errAck[1], "error") != "ABCI code: 7: error handling packet: see events for details" {
		t.Errorf("origin error ack events %v", errAck)
	}
}

func TestTimeoutRefund(t *testing.T) {
	n := newNet(t)
	l1 := n.chains[l1ID]
	alice := acct("alice")
	l1.Fund(alice, "uinit", 1000)
	// Times out at the destination's next height: the relayer must time it out instead.
	next := uint64(n.chains[wasmID].Height() + 1)
	l1.Submit(b32("init", alice), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-1", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "300"},
		Sender: b32("init", alice), Receiver: b32("init", acct("bob")), TimeoutHeight: &clientv1.Height{RevisionNumber: 1, RevisionHeight: next},
	})
	n.settle(10)
	if f := failedTxs(n); len(f) > 0 {
		t.Fatalf("failed txs: %v", f)
	}
	if got := bal(l1, alice, "uinit"); got != 1000 {
		t.Errorf("alice %d", got)
	}
	to := n.txsWith(l1ID, "timeout_packet")
	if len(to) != 1 {
		t.Fatalf("%d timeout txs", len(to))
	}
	if diff := cmp.Diff([]string{"timeout_packet", "timeout"}, nonMessage(to[0].Events)); diff != "" {
		t.Errorf("timeout tx: %s", diff)
	}
	wantTP := []string{"packet_timeout_height", "packet_timeout_timestamp", "packet_sequence", "packet_src_port", "packet_src_channel",
		"packet_dst_port", "packet_dst_channel", "connection_id", "packet_channel_ordering"}
	if diff := cmp.Diff(wantTP, simtest.Keys(simtest.FindEvents(to[0].Events, "timeout_packet")[0])); diff != "" {
		t.Errorf("timeout_packet keys %s", diff)
	}
	if len(n.txsWith(wasmID, "recv_packet")) != 0 {
		t.Error("timed-out packet was received")
	}
}

func TestOPinitDepositAndWithdrawal(t *testing.T) {
	n := newNet(t)
	l1, mv := n.chains[l1ID], n.chains[moveID]
	alice, bob := acct("alice"), acct("bob")
	l1.Fund(alice, "uinit", 1000)
	l1.Submit(b32("init", alice), &ophostv1.MsgInitiateTokenDeposit{
		Sender: b32("init", alice), BridgeId: 1, To: b32("init", bob), Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "250"},
	})
	n.settle(10)
	if f := failedTxs(n); len(f) > 0 {
		t.Fatalf("failed txs: %v", f)
	}
	l2 := opinit.L2Denom(1, "uinit")
	if got := bal(mv, bob, l2); got != 250 {
		t.Errorf("bob %s = %d", l2, got)
	}
	if got := bal(l1, opinit.BridgeAddress(1), "uinit"); got != 250 {
		t.Errorf("bridge account %d", got)
	}
	dep := n.txsWith(l1ID, "initiate_token_deposit")
	ev := simtest.FindEvents(dep[0].Events, "initiate_token_deposit")[0]
	if diff := cmp.Diff([]string{"bridge_id", "l1_sequence", "from", "to", "l1_denom", "l2_denom", "amount", "data"}, simtest.Keys(ev)); diff != "" {
		t.Error(diff)
	}
	fin := n.txsWith(moveID, "finalize_token_deposit")
	if len(fin) != 1 {
		t.Fatalf("%d finalize txs", len(fin))
	}
	fev := simtest.FindEvents(fin[0].Events, "finalize_token_deposit")[0]
	if diff := cmp.Diff([]string{"l1_sequence", "sender", "recipient", "denom", "base_denom", "amount", "finalize_height", "success"}, simtest.Keys(fev)); diff != "" {
		t.Error(diff)
	}
	if simtest.Attr(fev, "finalize_height") != strconv.FormatInt(dep[0].Height, 10) || simtest.Attr(fev, "success") != "true" ||
		simtest.Attr(fev, "l1_sequence") != "1" || simtest.Attr(fev, "denom") != l2 || simtest.Attr(fev, "base_denom") != "uinit" {
		t.Errorf("finalize %v (deposit at L1 height %d)", fev.Attributes, dep[0].Height)
	}
	if fin[0].Signer != b32("init", acct("executor")) {
		t.Errorf("finalized by %s", fin[0].Signer)
	}

	// Withdraw 100 back and claim on L1.
	mv.Submit(b32("init", bob), &opchildv1.MsgInitiateTokenWithdrawal{Sender: b32("init", bob), To: b32("init", alice),
		Amount: &basev1beta1.Coin{Denom: l2, Amount: "100"}})
	n.round()
	n.round()
	if got := bal(mv, bob, l2); got != 150 {
		t.Errorf("bob after withdrawal %d", got)
	}
	// Build the claim from the executor API, as the wallet does.
	api := opinit.ExecutorAPI(1, func() (sim.Query, error) { return mv.Query(), nil })
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("GET", "/withdrawal/1", nil))
	var w struct {
		Sequence    uint64 `json:"sequence"`
		To, From    string
		Amount      struct{ Denom, Amount string }
		OutputIndex uint64 `json:"output_index"`
		BridgeID    uint64 `json:"bridge_id"`
		StorageRoot []byte `json:"storage_root"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &w); err != nil || w.Sequence != 1 || w.Amount.Denom != "uinit" {
		t.Fatalf("executor api: %s (%v)", rec.Body.String(), err)
	}
	claim := &ophostv1.MsgFinalizeTokenWithdrawal{Sender: b32("init", alice), BridgeId: w.BridgeID, OutputIndex: w.OutputIndex, From: w.From,
		To: w.To, Sequence: w.Sequence, Amount: &basev1beta1.Coin{Denom: w.Amount.Denom, Amount: w.Amount.Amount}, StorageRoot: w.StorageRoot}
	list := httptest.NewRecorder()
	api.ServeHTTP(list, httptest.NewRequest("GET", "/withdrawals/"+b32("init", alice), nil))
	if !strings.Contains(list.Body.String(), `"sequence":1`) {
		t.Errorf("withdrawals by address: %s", list.Body.String())
	}
	res := l1.Exec(b32("init", alice), claim)
	if res.Code != 0 {
		t.Fatalf("claim failed: %s", res.Log)
	}
	if got := bal(l1, alice, "uinit"); got != 850 {
		t.Errorf("alice after claim %d", got)
	}
	if again := l1.Exec(b32("init", alice), claim); again.Code == 0 {
		t.Error("double claim accepted")
	}
	forged := proto.Clone(claim).(*ophostv1.MsgFinalizeTokenWithdrawal)
	forged.Sequence = 2
	if res := l1.Exec(b32("init", alice), forged); res.Code == 0 {
		t.Error("claim of an unknown withdrawal accepted")
	}
	// REST shapes
	if got := get(t, l1, "/opinit/ophost/v1/bridges/1/outputs/1"); !strings.Contains(got, `"output_index":"1","output_proposal":{"output_root":"`) {
		t.Errorf("output %s", got)
	}
	if got := get(t, mv, "/opinit/opchild/v1/next_l1_sequence"); got != `{"next_l1_sequence":"2"}` {
		t.Errorf("next_l1_sequence %s", got)
	}
	if got := get(t, l1, "/opinit/ophost/v1/bridges/1/token_pairs"); got != `{"token_pairs":[{"l1_denom":"uinit","l2_denom":"`+l2+`"}],"pagination":{"next_key":null,"total":"1"}}` {
		t.Errorf("token_pairs %s", got)
	}
}

func TestRedundantRelayIsNoop(t *testing.T) {
	n := newNet(t)
	l1, mv := n.chains[l1ID], n.chains[moveID]
	alice := acct("alice")
	l1.Fund(alice, "uinit", 10)
	l1.Submit(b32("init", alice), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "10"},
		Sender: b32("init", alice), Receiver: b32("init", alice), TimeoutTimestamp: uint64(l1.Time().Add(time.Hour).UnixNano()),
	})
	n.settle(10)
	recv := n.txsWith(moveID, "recv_packet")
	if len(recv) != 1 {
		t.Fatalf("%d recv", len(recv))
	}
	again := mv.Exec(b32("init", acct("relayer")), recv[0].Msgs...)
	if again.Code != 0 || len(simtest.FindEvents(again.Events, "recv_packet")) != 0 {
		t.Errorf("redundant recv: code %d events %v", again.Code, simtest.Types(again.Events))
	}
	if got := bal(mv, alice, "ibc/"+denom.IBCHash("transfer/channel-0/uinit")); got != 10 {
		t.Errorf("double credit: %d", got)
	}
	_ = big.NewInt
}

func TestFourHopNestedForward(t *testing.T) {
	n := newNet(t)
	l1, wasm, noble := n.chains[l1ID], n.chains[wasmID], n.chains[nobleID]
	carol, erin := acct("carol"), acct("erin")
	noble.Fund(carol, "uusdc", 500)
	// noble → L1 → minimove → L1 (unwinding) → miniwasm, each hop's memo nested in next.
	memo := forwardMemo("pfm", "channel-0", forwardMemo("pfm", "channel-0", forwardMemo(b32("init", erin), "channel-1", "")))
	noble.Submit(b32("noble", carol), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uusdc", Amount: "33"},
		Sender: b32("noble", carol), Receiver: "pfm", TimeoutTimestamp: uint64(noble.Time().Add(time.Hour).UnixNano()), Memo: memo,
	})
	n.settle(30)
	if f := failedTxs(n); len(f) > 0 {
		t.Fatalf("failed txs: %v", f)
	}
	final := "ibc/" + denom.IBCHash("transfer/channel-0/transfer/channel-2/uusdc")
	if got := bal(wasm, erin, final); got != 33 {
		t.Errorf("erin %d", got)
	}
	// L1 forwarded twice; its channel-0 escrow got the voucher back out when it returned.
	v := "ibc/" + denom.IBCHash("transfer/channel-2/uusdc")
	if got := bal(l1, ibc.EscrowAddress("transfer", "channel-0"), v); got != 0 {
		t.Errorf("L1 channel-0 escrow %d", got)
	}
	if got := bal(l1, ibc.EscrowAddress("transfer", "channel-1"), v); got != 33 {
		t.Errorf("L1 channel-1 escrow %d", got)
	}
	// Every hop was acknowledged, the origin last.
	for chain, want := range map[string]int{nobleID: 1, l1ID: 2, moveID: 1} {
		if got := len(n.txsWith(chain, "acknowledge_packet")); got != want {
			t.Errorf("%s: %d ack txs, want %d", chain, got, want)
		}
	}
	originAck := n.txsWith(nobleID, "acknowledge_packet")[0]
	finalRecv := n.txsWith(wasmID, "recv_packet")[0]
	if originAck.Height <= finalRecv.Height {
		t.Errorf("origin acked at %d before final receive at %d", originAck.Height, finalRecv.Height)
	}
}

func TestMoveHookMemo(t *testing.T) {
	n := newNet(t)
	l1, mv := n.chains[l1ID], n.chains[moveID]
	alice := acct("alice")
	l1.Fund(alice, "uinit", 100)
	memo := `{"move":{"message":{"module_address":"0x1","module_name":"dex","function_name":"swap","type_args":[],"args":[]}}}`
	l1.Submit(b32("init", alice), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "5"},
		Sender: b32("init", alice), Receiver: "0x1::dex::swap", TimeoutTimestamp: uint64(l1.Time().Add(time.Hour).UnixNano()), Memo: memo,
	})
	n.settle(10)
	recv := n.txsWith(moveID, "recv_packet")
	if len(recv) != 1 {
		t.Fatalf("%d recv", len(recv))
	}
	if diff := cmp.Diff([]string{"recv_packet", "denomination_trace", "fungible_token_packet", "execute", "write_acknowledgement"}, nonMessage(recv[0].Events)); diff != "" {
		t.Errorf("hook recv: %s", diff)
	}
	inter := ibc.HookIntermediary("move", "channel-0", b32("init", alice))
	if got := bal(mv, inter, "ibc/"+denom.IBCHash("transfer/channel-0/uinit")); got != 5 {
		t.Errorf("intermediary %d", got)
	}
	// A receiver that does not match the hook is refused with the hook's error ack.
	l1.Submit(b32("init", alice), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "5"},
		Sender: b32("init", alice), Receiver: b32("init", alice), TimeoutTimestamp: uint64(l1.Time().Add(time.Hour).UnixNano()), Memo: memo,
	})
	n.settle(10)
	recv = n.txsWith(moveID, "write_acknowledgement")
	last := simtest.FindEvents(recv[len(recv)-1].Events, "write_acknowledgement")[0]
	if !strings.HasPrefix(simtest.Attr(last, "packet_ack"), `{"error":"ibc move hook error: receiver is not properly set`) {
		t.Errorf("ack %s", simtest.Attr(last, "packet_ack"))
	}
	if got := bal(l1, alice, "uinit"); got != 95 {
		t.Errorf("alice refunded to %d", got)
	}
}

func TestDepositWithHookWithoutExecutor(t *testing.T) {
	n := newNet(t)
	l1, wasm := n.chains[l1ID], n.chains[wasmID]
	alice := acct("alice")
	l1.Fund(alice, "uinit", 100)
	l1.Submit(b32("init", alice), &ophostv1.MsgInitiateTokenDeposit{
		Sender: b32("init", alice), BridgeId: 2, To: b32("init", alice), Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "9"}, Data: []byte{1, 2, 3},
	})
	n.settle(10)
	fin := n.txsWith(wasmID, "finalize_token_deposit")
	if len(fin) != 1 {
		t.Fatalf("%d finalize", len(fin))
	}
	ev := simtest.FindEvents(fin[0].Events, "finalize_token_deposit")[0]
	if simtest.Attr(ev, "success") != "false" || !strings.HasPrefix(simtest.Attr(ev, "reason"), "hook failed; ") {
		t.Errorf("finalize %v", ev.Attributes)
	}
	if got := bal(wasm, alice, opinit.L2Denom(2, "uinit")); got != 9 {
		t.Errorf("deposit not kept after hook failure: %d", got)
	}
	dep := simtest.FindEvents(n.txsWith(l1ID, "initiate_token_deposit")[0].Events, "initiate_token_deposit")[0]
	if simtest.Attr(dep, "data") != "010203" {
		t.Errorf("data %s", simtest.Attr(dep, "data"))
	}
}

func TestForwardTimeoutGivesUp(t *testing.T) {
	n := newNet(t)
	l1, noble := n.chains[l1ID], n.chains[nobleID]
	carol := acct("carol")
	noble.Fund(carol, "uusdc", 500)
	// The second hop gets a 1s timeout: it expires before miniwasm can receive it, so L1
	// times it out and answers the origin with PFM's error ack.
	memo := `{"forward":{"receiver":"` + b32("init", acct("erin")) + `","port":"transfer","channel":"channel-1","timeout":"1s"}}`
	noble.Submit(b32("noble", carol), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uusdc", Amount: "70"},
		Sender: b32("noble", carol), Receiver: "pfm", TimeoutTimestamp: uint64(noble.Time().Add(time.Hour).UnixNano()), Memo: memo,
	})
	n.settle(15)
	if got := bal(noble, carol, "uusdc"); got != 500 {
		t.Errorf("carol %d", got)
	}
	to := n.txsWith(l1ID, "timeout_packet")
	if len(to) != 1 {
		t.Fatalf("%d L1 timeout txs", len(to))
	}
	if diff := cmp.Diff([]string{"timeout_packet", "write_acknowledgement"}, nonMessage(to[0].Events)); diff != "" {
		t.Errorf("L1 timeout tx: %s", diff)
	}
	wa := simtest.FindEvents(to[0].Events, "write_acknowledgement")[0]
	want := `{"error":"packet-forward-middleware error: giving up on packet on channel (channel-2) port (transfer) after max retries"}`
	if got := simtest.Attr(wa, "packet_ack"); got != want {
		t.Errorf("ack %s", got)
	}
	v := "ibc/" + denom.IBCHash("transfer/channel-2/uusdc")
	if got := bal(l1, ibc.EscrowAddress("transfer", "channel-1"), v); got != 0 {
		t.Errorf("escrow keeps %d", got)
	}
}

func TestForwardTimeoutRetries(t *testing.T) {
	n := newNet(t)
	noble, wasm := n.chains[nobleID], n.chains[wasmID]
	carol, erin := acct("carol"), acct("erin")
	noble.Fund(carol, "uusdc", 500)
	memo := `{"forward":{"receiver":"` + b32("init", erin) + `","port":"transfer","channel":"channel-1","timeout":"1s","retries":1}}`
	noble.Submit(b32("noble", carol), &transferv1.MsgTransfer{
		SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uusdc", Amount: "70"},
		Sender: b32("noble", carol), Receiver: "pfm", TimeoutTimestamp: uint64(noble.Time().Add(time.Hour).UnixNano()), Memo: memo,
	})
	n.settle(20)
	// Both attempts time out (1s each); the retry is a new send_packet in the timeout tx.
	to := n.txsWith(l1ID, "timeout_packet")
	if len(to) != 2 {
		t.Fatalf("%d L1 timeout txs", len(to))
	}
	if diff := cmp.Diff([]string{"timeout_packet", "timeout", "send_packet", "ibc_transfer"}, nonMessage(to[0].Events)); diff != "" {
		t.Errorf("retry tx: %s", diff)
	}
	if got := bal(noble, carol, "uusdc"); got != 500 {
		t.Errorf("carol %d", got)
	}
	_ = wasm
}

// TestTrafficConservation runs the modules' own seeded traffic (transfers with forwards,
// deposits, withdrawals) through the relayer, then checks that no token was created or
// lost: every voucher supply equals what its source escrows, and every L2 denom supply
// plus the withdrawals equals the L1 bridge account.
func TestTrafficConservation(t *testing.T) {
	specs := []bridge.ChainSpec{
		{ChainID: l1ID, Kind: bridge.KindL1, Prefix: "init", NativeDenoms: []string{"uinit"}},
		{ChainID: moveID, Kind: bridge.KindMinimove, Prefix: "init", NativeDenoms: []string{"umin"}, Executor: b32("init", acct("executor"))},
		{ChainID: wasmID, Kind: bridge.KindMiniwasm, Prefix: "init", NativeDenoms: []string{"uwasm"}, Executor: b32("init", acct("executor"))},
		{ChainID: nobleID, Kind: bridge.KindExternal, Prefix: "noble", NativeDenoms: []string{"uusdc"}},
	}
	w, err := bridge.Wire(specs, bridge.Options{TrafficRate: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	n := &net{t: t, chains: map[string]*simtest.Chain{}, wiring: w}
	var eps []relayer.Endpoint
	for i, s := range specs {
		cm, _ := w.Chain(s.ChainID)
		c, err := simtest.Boot(s.ChainID, s.Prefix, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), cm.Modules()...)
		if err != nil {
			t.Fatal(err)
		}
		c.Seed, c.TrafficOn = uint64(i+1), true
		for j := 0; j < 4; j++ {
			a := acct("user" + strconv.Itoa(j))
			c.Accounts = append(c.Accounts, sim.Account{Addr: a, Bech32: b32(s.Prefix, a)})
			for _, d := range s.NativeDenoms {
				c.Fund(a, d, 1_000_000_000)
			}
		}
		n.chains[s.ChainID] = c
		n.order = append(n.order, s.ChainID)
		eps = append(eps, relayer.Endpoint{Chain: adapter{c}, Relayer: b32(s.Prefix, acct("relayer")), Executor: s.Executor})
	}
	if n.rel, err = relayer.New(w.RelayerConfig(eps)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60; i++ {
		n.round()
	}
	for _, c := range n.chains {
		c.TrafficOn = false
	}
	n.settle(30)
	counts := map[string]int{}
	for _, id := range n.order {
		for _, typ := range []string{"send_packet", "recv_packet", "acknowledge_packet", "initiate_token_deposit", "finalize_token_deposit", "initiate_token_withdrawal"} {
			counts[id+" "+typ] = len(n.txsWith(id, typ))
		}
	}
	if counts[l1ID+" recv_packet"] == 0 || counts[moveID+" finalize_token_deposit"]+counts[wasmID+" finalize_token_deposit"] == 0 ||
		counts[nobleID+" send_packet"] == 0 || counts[moveID+" initiate_token_withdrawal"]+counts[wasmID+" initiate_token_withdrawal"] == 0 {
		t.Fatalf("traffic too thin: %v", counts)
	}
	// IBC: for every channel end and every native denom of its chain, the vouchers on the
	// other side equal the escrow.
	for _, cm := range w.Chains {
		src := n.chains[cm.Spec.ChainID]
		for _, ch := range cm.Channels {
			dst := n.chains[ch.CounterpartyChainID]
			for _, d := range cm.Spec.NativeDenoms {
				voucher := "ibc/" + denom.IBCHash("transfer/"+ch.CounterpartyChannelID+"/"+d)
				esc := src.Balance(ibc.EscrowAddress("transfer", ch.ChannelID), d)
				if sup := dst.Supply(voucher); sup.Cmp(esc) != 0 {
					t.Errorf("%s %s → %s: escrow %s, voucher supply %s", cm.Spec.ChainID, d, ch.CounterpartyChainID, esc, sup)
				}
			}
		}
	}
	// OPinit: bridge account = L2 supply + withdrawn (unclaimed) amounts.
	l1 := n.chains[l1ID]
	for _, cm := range w.Chains {
		if cm.BridgeID == 0 {
			continue
		}
		l2c := n.chains[cm.Spec.ChainID]
		withdrawn := new(big.Int)
		for _, rec := range opinit.ListWithdrawals(l2c.Query().Store(opinit.ChildStore)) {
			a, _ := new(big.Int).SetString(rec.Amount, 10)
			withdrawn.Add(withdrawn, a)
		}
		sup := l2c.Supply(opinit.L2Denom(cm.BridgeID, "uinit"))
		if got := l1.Balance(opinit.BridgeAddress(cm.BridgeID), "uinit"); got.Cmp(new(big.Int).Add(sup, withdrawn)) != 0 {
			t.Errorf("bridge %d: L1 holds %s, L2 supply %s + withdrawn %s", cm.BridgeID, got, sup, withdrawn)
		}
	}
	if f := failedTxs(n); len(f) > 0 {
		t.Errorf("%d failed txs, first: %v", len(f), f[0])
	}
	t.Logf("traffic: %v", counts)
}

// TestEventAttributeOrder checks every bridge event type the flows above produce against
// the attribute lists of docs/chain-events.md (§2.1, §2.3, §5.1, §5.3), in order.
func TestEventAttributeOrder(t *testing.T) {
	want := map[string][]string{
		"send_packet": {"packet_data", "packet_data_hex", "packet_timeout_height", "packet_timeout_timestamp", "packet_sequence",
			"packet_src_port", "packet_src_channel", "packet_dst_port", "packet_dst_channel", "packet_channel_ordering", "packet_connection", "connection_id"},
		"recv_packet": {"packet_data", "packet_data_hex", "packet_timeout_height", "packet_timeout_timestamp", "packet_sequence",
			"packet_src_port", "packet_src_channel", "packet_dst_port", "packet_dst_channel", "packet_channel_ordering", "packet_connection", "connection_id"},
		"write_acknowledgement": {"packet_data", "packet_data_hex", "packet_timeout_height", "packet_timeout_timestamp", "packet_sequence",
			"packet_src_port", "packet_src_channel", "packet_dst_port", "packet_dst_channel", "packet_ack", "packet_ack_hex",
			"packet_channel_ordering", "packet_connection", "connection_id"},
		"acknowledge_packet": {"packet_timeout_height", "packet_timeout_timestamp", "packet_sequence", "packet_src_port", "packet_src_channel",
			"packet_dst_port", "packet_dst_channel", "packet_channel_ordering", "packet_connection", "connection_id"},
		"timeout_packet": {"packet_timeout_height", "packet_timeout_timestamp", "packet_sequence", "packet_src_port", "packet_src_channel",
			"packet_dst_port", "packet_dst_channel", "connection_id", "packet_channel_ordering"},
		"ibc_transfer":              {"sender", "receiver", "amount", "denom", "memo"},
		"denomination_trace":        {"trace_hash", "denom"},
		"timeout":                   {"module", "refund_receiver", "refund_denom", "refund_amount", "memo"},
		"initiate_token_deposit":    {"bridge_id", "l1_sequence", "from", "to", "l1_denom", "l2_denom", "amount", "data"},
		"finalize_token_deposit":    {"l1_sequence", "sender", "recipient", "denom", "base_denom", "amount", "finalize_height", "success"},
		"initiate_token_withdrawal": {"from", "to", "denom", "base_denom", "amount", "l2_sequence"},
		"finalize_token_withdrawal": {"bridge_id", "output_index", "l2_sequence", "from", "to", "l1_denom", "l2_denom", "amount"},
	}
	// fungible_token_packet has three shapes: receive, ack (1st) and ack (2nd).
	ftpShapes := [][]string{
		{"module", "sender", "receiver", "denom", "amount", "memo", "success"},
		{"module", "sender", "receiver", "denom", "amount", "memo", "success", "error"},
		{"module", "sender", "receiver", "denom", "amount", "memo", "acknowledgement"},
		{"success"}, {"error"},
	}
	n := newNet(t)
	l1, mv := n.chains[l1ID], n.chains[moveID]
	alice := acct("alice")
	l1.Fund(alice, "uinit", 10_000)
	ts := uint64(l1.Time().Add(time.Hour).UnixNano())
	l1.Submit(b32("init", alice),
		&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "10"},
			Sender: b32("init", alice), Receiver: b32("init", alice), TimeoutTimestamp: ts},
		&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "10"},
			Sender: b32("init", alice), Receiver: "bad-receiver", TimeoutTimestamp: ts},
		&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-1", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "10"},
			Sender: b32("init", alice), Receiver: b32("init", alice), TimeoutHeight: &clientv1.Height{RevisionNumber: 1, RevisionHeight: uint64(n.chains[wasmID].Height() + 1)}},
		&ophostv1.MsgInitiateTokenDeposit{Sender: b32("init", alice), BridgeId: 1, To: b32("init", alice), Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "50"}},
	)
	n.settle(10)
	l2 := opinit.L2Denom(1, "uinit")
	mv.Submit(b32("init", alice), &opchildv1.MsgInitiateTokenWithdrawal{Sender: b32("init", alice), To: b32("init", alice), Amount: &basev1beta1.Coin{Denom: l2, Amount: "5"}})
	n.round()
	n.round()
	l1.Submit(b32("init", alice), &ophostv1.MsgFinalizeTokenWithdrawal{Sender: b32("init", alice), BridgeId: 1, OutputIndex: 1,
		From: b32("init", alice), To: b32("init", alice), Sequence: 1, Amount: &basev1beta1.Coin{Denom: "uinit", Amount: "5"}})
	n.round()
	if f := failedTxs(n); len(f) > 0 {
		t.Fatalf("failed: %v", f)
	}
	seen := map[string]bool{}
	ftpSeen := map[int]bool{}
	for _, id := range n.order {
		for _, b := range n.chains[id].Blocks {
			for _, tx := range b.Txs {
				for _, ev := range tx.Events {
					keys := simtest.Keys(ev)
					if ev.Type == "ibccallbackerror-fungible_token_packet" {
						// a failed receive: the callback's events renamed (§2.1)
						for i := range keys {
							keys[i] = strings.TrimPrefix(keys[i], "ibccallbackerror-")
						}
						ev.Type = "fungible_token_packet"
					}
					if ev.Type == "fungible_token_packet" {
						matched := false
						for i, shape := range ftpShapes {
							if cmp.Equal(shape, keys) {
								ftpSeen[i], matched = true, true
							}
						}
						if !matched {
							t.Errorf("fungible_token_packet keys %v", keys)
						}
						continue
					}
					w, ok := want[ev.Type]
					if !ok {
						continue
					}
					seen[ev.Type] = true
					if diff := cmp.Diff(w, keys); diff != "" {
						t.Errorf("%s on %s: %s", ev.Type, id, diff)
					}
				}
			}
		}
	}
	for typ := range want {
		if !seen[typ] {
			t.Errorf("flow never emitted %s", typ)
		}
	}
	for i := range ftpShapes {
		if !ftpSeen[i] {
			t.Errorf("fungible_token_packet shape %v never emitted", ftpShapes[i])
		}
	}
}

// recorder is an ibc.HookExecutor + CallbackExecutor that records callbacks and fails
// the ones for callback id 13.
type recorder struct{ calls []ibc.Callback }

func (r *recorder) ExecIBCHook(sim.Env, vmkind.Kind, []byte, json.RawMessage, sim.Coin) error {
	return nil
}
func (r *recorder) ExecIBCCallback(env sim.Env, _ vmkind.Kind, _ []byte, cb json.RawMessage, c ibc.Callback) error {
	if strings.Contains(string(cb), `"id":13`) {
		env.Emit(sim.Event{Type: "should_vanish"})
		return errors.New("callback reverted")
	}
	env.Emit(sim.Event{Type: "callback_ran"})
	r.calls = append(r.calls, c)
	return nil
}

func TestAsyncCallbacks(t *testing.T) {
	rec := &recorder{}
	specs := []bridge.ChainSpec{
		{ChainID: l1ID, Kind: bridge.KindL1, Prefix: "init", NativeDenoms: []string{"uinit"}},
		{ChainID: moveID, Kind: bridge.KindMinimove, Prefix: "init", Executor: b32("init", acct("executor"))},
	}
	w, err := bridge.Wire(specs, bridge.Options{IBCHooks: map[string]ibc.HookExecutor{l1ID: rec}})
	if err != nil {
		t.Fatal(err)
	}
	n := &net{t: t, chains: map[string]*simtest.Chain{}, wiring: w}
	var eps []relayer.Endpoint
	for _, s := range specs {
		cm, _ := w.Chain(s.ChainID)
		c, _ := simtest.Boot(s.ChainID, s.Prefix, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), cm.Modules()...)
		n.chains[s.ChainID], n.order = c, append(n.order, s.ChainID)
		eps = append(eps, relayer.Endpoint{Chain: adapter{c}, Relayer: b32(s.Prefix, acct("relayer")), Executor: s.Executor})
	}
	if n.rel, err = relayer.New(w.RelayerConfig(eps)); err != nil {
		t.Fatal(err)
	}
	l1 := n.chains[l1ID]
	alice := acct("alice")
	l1.Fund(alice, "uinit", 100)
	memo := func(id int) string {
		return `{"move":{"async_callback":{"id":` + strconv.Itoa(id) + `,"module_address":"0x1","module_name":"cb"}},"note":"x"}`
	}
	l1.Submit(b32("init", alice),
		&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "1"},
			Sender: b32("init", alice), Receiver: b32("init", alice), TimeoutTimestamp: uint64(l1.Time().Add(time.Hour).UnixNano()), Memo: memo(7)},
		&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "1"},
			Sender: b32("init", alice), Receiver: b32("init", alice), TimeoutTimestamp: uint64(l1.Time().Add(time.Hour).UnixNano()), Memo: memo(13)},
		&transferv1.MsgTransfer{SourcePort: "transfer", SourceChannel: "channel-0", Token: &basev1beta1.Coin{Denom: "uinit", Amount: "1"},
			Sender: b32("init", alice), Receiver: b32("init", alice), TimeoutHeight: &clientv1.Height{RevisionNumber: 1, RevisionHeight: uint64(n.chains[moveID].Height() + 1)}, Memo: memo(8)},
	)
	n.settle(10)
	send := n.txsWith(l1ID, "send_packet")[0]
	sps := simtest.FindEvents(send.Events, "send_packet")
	var pd ibc.PacketData
	_ = json.Unmarshal([]byte(simtest.Attr(sps[0], "packet_data")), &pd)
	if pd.Memo != `{"note":"x"}` || simtest.Attr(simtest.FindEvents(send.Events, "ibc_transfer")[0], "memo") != memo(7) {
		t.Errorf("callback not stripped from the packet: %q", pd.Memo)
	}
	if len(rec.calls) != 2 {
		t.Fatalf("callbacks %+v", rec.calls)
	}
	var acked, timedOut bool
	for _, c := range rec.calls {
		acked = acked || (!c.Timeout && c.Success && c.Sequence == 1)
		timedOut = timedOut || (c.Timeout && c.Sequence == 3)
	}
	if !acked || !timedOut {
		t.Errorf("callbacks %+v", rec.calls)
	}
	var failed []sim.Event
	for _, tx := range append(n.txsWith(l1ID, "acknowledge_packet"), n.txsWith(l1ID, "timeout_packet")...) {
		failed = append(failed, simtest.FindEvents(tx.Events, "hook_failed")...)
		if len(simtest.FindEvents(tx.Events, "should_vanish")) > 0 {
			t.Error("events of a failed callback kept")
		}
	}
	if len(failed) != 1 || simtest.Attr(failed[0], "reason") != "failed to execute callback" || simtest.Attr(failed[0], "error") != "callback reverted" {
		t.Errorf("hook_failed %v", failed)
	}
}
