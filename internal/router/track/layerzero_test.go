package track

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/testutil"
)

const (
	lzGUID  = "0x" + "ab12000000000000000000000000000000000000000000000000000000000cd3"
	lzEthID = "31337"
	lzL1ID  = "initia-devnet-1"
	lzEthOF = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512"
)

// evalAt evaluates a tx at a chosen time, one lookup at a time and in a batch, and checks both
// agree.
func (s *scenario) evalAt(chain, hash string, now time.Time, window time.Duration) (StatusResponse, *evaluation) {
	e := &evaluation{ctx: context.Background(), st: s.st, reg: s.reg, probe: noProbe{}, now: now}
	r := e.evaluate(chain, hash, now, window)
	if e.err != nil {
		s.t.Fatal(e.err)
	}
	k := tkey{chain, hash}
	res, _ := evaluateBatch(context.Background(), s.st, s.reg, noProbe{}, now, window, []tkey{k}, func(tkey) time.Time { return now })
	if len(res) != 1 || res[0].err != nil {
		s.t.Fatalf("batch: %+v", res)
	}
	want, _ := json.Marshal(r)
	have, _ := json.Marshal(res[0].resp)
	if string(want) != string(have) {
		s.t.Fatalf("batch evaluation differs:\n%s\nwant\n%s", have, want)
	}
	if !e.recheck.Equal(res[0].ev.recheck) {
		s.t.Fatalf("batch recheck %v, want %v", res[0].ev.recheck, e.recheck)
	}
	return r, e
}

func lzSent(dstEID, amount string) Event {
	return Event{Kind: KindLZSent, MsgIndex: 0, Attrs: map[string]string{"guid": lzGUID, "oft": lzEthOF, "dst_eid": dstEID,
		"amount_sent_ld": amount, "amount_received_ld": amount}}
}

func lzRecv(srcEID, amount string) Event {
	return Event{Kind: KindLZRecv, MsgIndex: 0, Attrs: map[string]string{"guid": lzGUID, "src_eid": srcEID, "amount_received_ld": amount}}
}

// TestEvalLayerZero: an OFT send from the Ethereum chain is SENT (pending, the funds not yet
// released on the L1) until the L1 OFT's receive with its GUID is stored, then RECEIVED and
// complete with the amount on the L1; the same send with no receive is abandoned once the
// window after its block time has passed, and asks to be evaluated again when it ends.
func TestEvalLayerZero(t *testing.T) {
	s := newScenario(t)
	l1 := s.reg.Chain(lzL1ID)
	eth := s.reg.Chain(lzEthID)
	if l1 == nil || eth == nil || l1.LZEndpointID == 0 {
		t.Fatal("registry lacks the LayerZero chains")
	}
	eid := func(c uint32) string { return strings.TrimSpace(jsonNum(c)) }
	s.tx(lzEthID, "E1", ok(), lzSent(eid(l1.LZEndpointID), "1000000"))
	sentAt := time.Unix(1_767_225_600+s.h, 0).UTC()
	window := 10 * time.Minute

	now := time.Now()
	s.chainTime(lzL1ID, 1, sentAt.Add(time.Minute))
	r, e := s.evalAt(lzEthID, "E1", now, window)
	if r.State != StatePending || len(r.TransferSequence) != 1 || r.TransferSequence[0].LayerZeroTransfer == nil {
		t.Fatalf("sent: %+v", r)
	}
	hop := r.TransferSequence[0].LayerZeroTransfer
	if hop.State != LZSent || hop.FromChainID != lzEthID || hop.ToChainID != lzL1ID || hop.GUID != lzGUID ||
		hop.Txs.SendTx == nil || hop.Txs.SendTx.TxHash != "0xe1" || hop.Txs.ReceiveTx != nil {
		t.Fatalf("sent hop: %+v", hop)
	}
	if r.TransferAssetRelease == nil || r.TransferAssetRelease.Released || r.TransferAssetRelease.ChainID != lzL1ID ||
		!strings.HasPrefix(r.TransferAssetRelease.Denom, "move/") {
		t.Fatalf("sent release: %+v", r.TransferAssetRelease)
	}
	if len(e.waits) != 1 || e.waits[0] != (EventKey{lzL1ID, KindLZRecv, lzGUID}) || !e.recheck.Equal(now.Add(window-time.Minute+time.Second)) {
		t.Fatalf("sent waits %v recheck %v", e.waits, e.recheck)
	}
	statusGolden(t, "status_layer_zero_sent.json", r)

	// Wall-clock time alone abandons nothing: the chains must have moved past the window.
	if r, _ = s.evalAt(lzEthID, "E1", now.Add(24*time.Hour), window); r.State != StatePending {
		t.Fatalf("abandoned in wall-clock time: %+v", r)
	}
	// Past the window in the source chain's time without a receive: abandoned, terminal, the
	// hop still SENT.
	s.chainTime(lzEthID, 1, sentAt.Add(window+time.Minute))
	r, _ = s.evalAt(lzEthID, "E1", now, window)
	if r.State != StateAbandoned || r.Status != StatusCompleted || r.Transfers[0].State != StateAbandoned ||
		r.TransferSequence[0].LayerZeroTransfer.State != LZSent || r.Error == nil || r.Error.Type != StatusErrorIndexing ||
		r.NextBlockingTransfer != nil {
		t.Fatalf("abandoned: %+v", r)
	}
	statusGolden(t, "status_layer_zero_abandoned.json", r)

	s.tx(lzL1ID, "L1RECV", ok(), lzRecv(eid(eth.LZEndpointID), "1000000"))
	r, e = s.evalAt(lzEthID, "E1", now, window)
	hop = r.TransferSequence[0].LayerZeroTransfer
	if r.State != StateCompletedSuccess || hop.State != LZReceived || hop.Txs.ReceiveTx == nil || hop.Txs.ReceiveTx.TxHash != "L1RECV" ||
		r.TransferAssetRelease == nil || !r.TransferAssetRelease.Released || *r.TransferAssetRelease.Amount != "1000000" ||
		r.TransferAssetRelease.ChainID != lzL1ID {
		t.Fatalf("received: %+v", r)
	}
	if !e.recheck.IsZero() {
		t.Fatalf("received recheck %v", e.recheck)
	}
	statusGolden(t, "status_layer_zero_received.json", r)
}

// statusGolden keeps a status as /v2/tx/status answers it; router/api validates these
// against Skip's OpenAPI document.
func statusGolden(t *testing.T, name string, r StatusResponse) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"status": 200, "body": r}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, name, append(b, '\n'))
}

// chainTime sets the scan cursor of chain (its last scanned block's time).
func (s *scenario) chainTime(chain string, h int64, at time.Time) {
	ctx := context.Background()
	if _, ok, err := s.st.LeaseCursor(ctx, chain, "test", time.Now(), time.Hour, -1); err != nil || !ok {
		s.t.Fatalf("lease %s: %v", chain, err)
	}
	if err := s.st.SaveBlocks(ctx, chain, "test", nil, Cursor{Height: h, Time: at}); err != nil {
		s.t.Fatal(err)
	}
}

func jsonNum(v uint32) string { b, _ := json.Marshal(v); return string(b) }

// TestMoveLayerZeroEvent: the Move OFT's OftSent event as the L1 emits it (type "move",
// type_tag and the fields as JSON) is stored as the LayerZero send, its GUID normalized;
// other Move events are left alone.
func TestMoveLayerZeroEvent(t *testing.T) {
	res := &comet.ExecTxResult{Events: []comet.Event{
		{Type: "move", Attributes: []comet.EventAttribute{{Key: "type_tag", Value: "0x1::coin::DepositEvent"}, {Key: "data", Value: `{"amount":"5"}`}}},
		{Type: "move", Attributes: []comet.EventAttribute{
			{Key: "type_tag", Value: "0xABC::oft_core::OftSent"},
			{Key: "data", Value: `{"guid":{"bytes":"0xAB12000000000000000000000000000000000000000000000000000000000CD3"},"dst_eid":40161,"from_address":"0x1","amount_sent_ld":"7","amount_received_ld":"7"}`},
			{Key: "msg_index", Value: "0"}}},
	}}
	evs := extract(lzL1ID, 5, 0, "H", time.Unix(0, 0), res, false)
	if len(evs) != 1 {
		t.Fatalf("events %+v", evs)
	}
	ev := evs[0]
	if ev.Kind != KindLZSent || ev.Key != lzGUID || ev.Attrs["dst_eid"] != "40161" || ev.Attrs["amount_received_ld"] != "7" ||
		ev.Attrs["oft"] != "0xabc" || ev.MsgIndex != 0 {
		t.Fatalf("event %+v", ev)
	}
}

// TestEVMLogEvents: OFTSent and OFTReceived logs (topics and data as a node returns them)
// decode to the send and the receive with the same GUID; a failed receipt keeps its row only.
func TestEVMLogEvents(t *testing.T) {
	// The topics LayerZero's IOFT.sol events hash to.
	if topicOFTSent != "0x85496b760a4b7f8d66384b9df21b381f5d1b1e79f229a47aaf4c232edc2fe59a" ||
		topicOFTReceived != "0xefed6d3500546b29533b128a29e3a94d70788727f0507505ac12eaf2e578fd9c" {
		t.Fatalf("topics %s %s", topicOFTSent, topicOFTReceived)
	}
	pad := func(s string) string { return strings.Repeat("0", 64-len(s)) + s }
	from := "000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"
	sent := evmrpc.Log{Address: "0xE7f1725E7734CE288F8367e1Bb143E90bb3F0512", Topics: []string{topicOFTSent, lzGUID, "0x" + from},
		Data: "0x" + pad("9d86") + pad("f4240") + pad("f4240"), BlockNumber: 9, TransactionHash: "0x" + strings.Repeat("aa", 32), LogIndex: 3}
	recv := evmrpc.Log{Address: "0xE7f1725E7734CE288F8367e1Bb143E90bb3F0512", Topics: []string{topicOFTReceived, lzGUID, "0x" + from},
		Data: "0x" + pad("9d86") + pad("f4240"), BlockNumber: 10, TransactionHash: "0x" + strings.Repeat("bb", 32)}
	s, ok1 := evmLogEvent(lzEthID, sent)
	r, ok2 := evmLogEvent(lzEthID, recv)
	if !ok1 || !ok2 || s.Kind != KindLZSent || r.Kind != KindLZRecv || s.Key != lzGUID || r.Key != lzGUID ||
		s.Attrs["dst_eid"] != "40326" || s.Attrs["amount_received_ld"] != "1000000" || s.Attrs["from_address"] != "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" ||
		r.Attrs["amount_received_ld"] != "1000000" || s.TxHash != strings.Repeat("AA", 32) || s.Pos != 3 || s.Height != 9 {
		t.Fatalf("sent %+v\nrecv %+v", s, r)
	}
	if _, ok := evmLogEvent(lzEthID, evmrpc.Log{Topics: []string{"0x01", lzGUID, "0x00"}, Data: "0x"}); ok {
		t.Fatal("another log decoded")
	}
	evs, err := evmReceiptEvents(lzEthID, &evmrpc.Receipt{TransactionHash: sent.TransactionHash, Status: 0, Logs: []evmrpc.Log{sent}})
	if err != nil || len(evs) != 1 || evs[0].Attrs["code"] != "1" {
		t.Fatalf("reverted receipt: %+v %v", evs, err)
	}
	evs, err = evmReceiptEvents(lzEthID, &evmrpc.Receipt{TransactionHash: sent.TransactionHash, Status: 1, Logs: []evmrpc.Log{sent}})
	if err != nil || len(evs) != 2 || evs[0].Kind != KindTx || evs[0].Attrs["code"] != "0" || evs[1].Kind != KindLZSent {
		t.Fatalf("receipt: %+v %v", evs, err)
	}
}

// TestEvalLayerZeroCompose: a send whose receive on the L1 carries the endpoint's ComposeSent
// (in the same message, before OftReceived) is WAITING_FOR_COMPOSE, the funds not released, until
// the executor's lz_compose stores ComposeDelivered; then RECEIVED with its compose_tx, and the
// OPinit deposit that tx made (after ComposeDelivered in its message) is the next hop, followed
// to the rollup. A compose that never comes is abandoned once the window after the receive has
// passed in the L1's time.
func TestEvalLayerZeroCompose(t *testing.T) {
	s := newScenario(t)
	l1 := s.reg.Chain(lzL1ID)
	eth := s.reg.Chain(lzEthID)
	eid := func(c uint32) string { return strings.TrimSpace(jsonNum(c)) }
	window := 10 * time.Minute
	now := time.Now()
	s.tx(lzEthID, "E1", ok(), lzSent(eid(l1.LZEndpointID), "1000000"))
	s.tx(lzL1ID, "L1RECV", ok(), Event{Kind: KindLZComposeSent, MsgIndex: 0, Attrs: map[string]string{"guid": lzGUID, "index": "0"}},
		lzRecv(eid(eth.LZEndpointID), "1000000"))
	recvAt := time.Unix(1_767_225_600+s.h, 0).UTC()
	s.chainTime(lzL1ID, 1, recvAt.Add(time.Minute))

	r, e := s.evalAt(lzEthID, "E1", now, window)
	hop := r.TransferSequence[0].LayerZeroTransfer
	if r.State != StatePending || len(r.TransferSequence) != 1 || hop.State != LZCompose || hop.Txs.ReceiveTx == nil || hop.Txs.ComposeTx != nil ||
		r.TransferAssetRelease == nil || r.TransferAssetRelease.Released {
		t.Fatalf("waiting for compose: %+v", r)
	}
	if len(e.waits) != 1 || e.waits[0] != (EventKey{lzL1ID, KindLZComposed, lzGUID}) {
		t.Fatalf("waits %v", e.waits)
	}

	// Past the window in the L1's time with no compose: abandoned, the hop still waiting.
	s.chainTime(lzL1ID, 2, recvAt.Add(window+time.Minute))
	if r, _ = s.evalAt(lzEthID, "E1", now, window); r.State != StateAbandoned || r.TransferSequence[0].LayerZeroTransfer.State != LZCompose || r.Error == nil {
		t.Fatalf("compose abandoned: %+v", r)
	}

	s.tx(lzL1ID, "COMPOSE", ok(), Event{Kind: KindLZComposed, MsgIndex: 0, Attrs: map[string]string{"guid": lzGUID, "index": "0"}},
		Event{Kind: KindDInit, MsgIndex: 0, Attrs: map[string]string{"bridge_id": "2", "l1_sequence": "9", "from": "init1composer", "to": "0xabc",
			"l1_denom": "move/x", "l2_denom": "l2/usdt", "amount": "1000000"}})
	r, _ = s.evalAt(lzEthID, "E1", now, window)
	if r.State != StatePending || len(r.TransferSequence) != 2 {
		t.Fatalf("composed: %+v", r)
	}
	hop, dep := r.TransferSequence[0].LayerZeroTransfer, r.TransferSequence[1].OPInitTransfer
	if hop.State != LZReceived || hop.Txs.ComposeTx == nil || hop.Txs.ComposeTx.TxHash != "COMPOSE" ||
		dep == nil || dep.State != OPInitSent || dep.Txs.SendTx == nil || dep.Txs.SendTx.TxHash != "COMPOSE" || dep.ToChainID != "minimove-devnet-1" {
		t.Fatalf("composed hops: %+v %+v", hop, dep)
	}
	s.tx("minimove-devnet-1", "FIN", Event{Kind: KindDFin, Attrs: map[string]string{"l1_sequence": "9", "success": "true"}})
	r, _ = s.evalAt(lzEthID, "E1", now, window)
	if r.State != StateCompletedSuccess || r.TransferSequence[1].OPInitTransfer.State != OPInitReceived ||
		r.TransferAssetRelease == nil || !r.TransferAssetRelease.Released || r.TransferAssetRelease.ChainID != "minimove-devnet-1" ||
		r.TransferAssetRelease.Denom != "l2/usdt" {
		t.Fatalf("deposited: %+v", r)
	}
}

// TestMoveComposeEvents: the endpoint's ComposeSent and ComposeDelivered Move events are
// stored keyed by their GUID (the Move vector<u8> printed as hex), in their message.
func TestMoveComposeEvents(t *testing.T) {
	move := func(tag, data string) comet.Event {
		return comet.Event{Type: "move", Attributes: []comet.EventAttribute{{Key: "type_tag", Value: tag}, {Key: "data", Value: data}, {Key: "msg_index", Value: "1"}}}
	}
	res := &comet.ExecTxResult{Events: []comet.Event{
		move("0xE9::messaging_composer::ComposeSent", `{"from":"0x1e8c","to":"0x8cec","guid":"0xAB12000000000000000000000000000000000000000000000000000000000CD3","index":0,"message":"0x00"}`),
		move("0xE9::messaging_composer::ComposeDelivered", `{"from":"0x1e8c","to":"0x8cec","guid":"0xab12000000000000000000000000000000000000000000000000000000000cd3","index":0}`),
	}}
	evs := extract(lzL1ID, 5, 0, "H", time.Unix(0, 0), res, false)
	if len(evs) != 2 || evs[0].Kind != KindLZComposeSent || evs[1].Kind != KindLZComposed || evs[0].Key != lzGUID || evs[1].Key != lzGUID ||
		evs[0].MsgIndex != 1 || evs[1].MsgIndex != 1 {
		t.Fatalf("events %+v", evs)
	}
}
