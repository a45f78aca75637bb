package track

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/router/registry"
)

// noProbe: no output proposal covers any withdrawal yet.
type noProbe struct{}

func (noProbe) Probe(context.Context, *registry.Chain, *registry.Chain, uint64) (WithdrawalProbe, error) {
	return WithdrawalProbe{Recheck: time.Second}, nil
}

// scenario stores hand-made events (the shapes the chains emit) and evaluates a tx after each
// step, for paths the devnet does not produce on demand.
type scenario struct {
	t   *testing.T
	st  *Store
	reg *registry.Registry
	h   int64
}

func newScenario(t *testing.T) *scenario {
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	return &scenario{t: t, st: openT(t, "sqlite:"+filepath.Join(t.TempDir(), "t.db")), reg: reg, h: 10}
}

// tx stores one tx's events on chain (each event: kind, msg_index, attributes).
func (s *scenario) tx(chain, hash string, evs ...Event) {
	s.h++
	var out []Event
	for i, e := range evs {
		e.ChainID, e.Height, e.TxIndex, e.Pos, e.TxHash = chain, s.h, 0, i, hash
		e.Time = time.Unix(1_767_225_600+s.h, 0).UTC()
		if e.Kind != KindTx {
			e.Key = keyOf(e.Kind, e.Attrs)
		} else {
			e.Key, e.Pos, e.MsgIndex = hash, -1, -1
		}
		out = append(out, e)
	}
	if err := s.st.InsertEvents(context.Background(), out); err != nil {
		s.t.Fatal(err)
	}
}

// eval evaluates the tx both ways the tracker can, one query per lookup and in a batch (with
// an unrelated tx beside it), and checks they agree: status, what it waits for, recheck.
func (s *scenario) eval(chain, hash string) StatusResponse {
	now := time.Now()
	e := &evaluation{ctx: context.Background(), st: s.st, reg: s.reg, probe: noProbe{}, now: now}
	r := e.evaluate(chain, hash, now, time.Hour)
	if e.err != nil {
		s.t.Fatal(e.err)
	}
	k := tkey{chain, hash}
	other := tkey{"initia-devnet-1", "00"}
	res, passes := evaluateBatch(context.Background(), s.st, s.reg, noProbe{}, now, time.Hour, []tkey{other, k},
		func(tkey) time.Time { return now })
	var got *batchResult
	for i := range res {
		if res[i].k == k {
			got = &res[i]
		}
	}
	if got == nil || got.err != nil {
		s.t.Fatalf("batch evaluation of %s: %+v", hash, got)
	}
	want, _ := json.Marshal(r)
	have, _ := json.Marshal(got.resp)
	if string(want) != string(have) {
		s.t.Fatalf("batch evaluation (%d passes) differs:\n%s\nwant\n%s", passes, have, want)
	}
	if !reflect.DeepEqual(e.waits, got.ev.waits) || !e.recheck.Equal(got.ev.recheck) {
		s.t.Fatalf("batch evaluation waits %v recheck %v, want %v %v", got.ev.waits, got.ev.recheck, e.waits, e.recheck)
	}
	return r
}

func (s *scenario) channel(from, to string) string {
	for _, ch := range s.reg.Chain(from).Channels {
		if ch.CounterpartyChainID == to {
			return ch.ID
		}
	}
	s.t.Fatalf("no channel %s → %s", from, to)
	return ""
}

func packet(kind, srcCh, dstCh, seq string, data map[string]string, ack string) Event {
	raw, _ := json.Marshal(data)
	a := map[string]string{"packet_sequence": seq, "packet_src_port": "transfer", "packet_src_channel": srcCh,
		"packet_dst_port": "transfer", "packet_dst_channel": dstCh, "packet_data_hex": hex.EncodeToString(raw)}
	if ack != "" {
		a["packet_ack_hex"] = hex.EncodeToString([]byte(ack))
	}
	return Event{Kind: kind, MsgIndex: 0, Attrs: a}
}

func ok() Event { return Event{Kind: KindTx, Attrs: map[string]string{"code": "0"}} }

func hopStates(r StatusResponse) []string {
	var out []string
	for _, h := range r.TransferSequence {
		switch {
		case h.IBCTransfer != nil:
			out = append(out, h.IBCTransfer.State)
		case h.OPInitTransfer != nil:
			out = append(out, h.OPInitTransfer.State)
		}
	}
	return out
}

func eq(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEvalDepositFailedRefund: a deposit the rollup cannot credit is sent back by a withdrawal
// in the same message; the transfer is an error whose funds are released on L1 once claimed.
func TestEvalDepositFailedRefund(t *testing.T) {
	s := newScenario(t)
	const l1, l2 = "initia-devnet-1", "minimove-devnet-1"
	s.tx(l1, "ROOT", ok(), Event{Kind: KindDInit, Attrs: map[string]string{"bridge_id": "2", "l1_sequence": "7", "from": "init1from", "to": "init1to",
		"l1_denom": "uinit", "l2_denom": "l2/x", "amount": "5"}})
	if r := s.eval(l1, "ROOT"); r.State != StatePending || !eq(hopStates(r), []string{OPInitSent}) {
		t.Fatalf("sent: %s %v", r.State, hopStates(r))
	}
	s.tx(l2, "FIN", Event{Kind: KindDFin, Attrs: map[string]string{"l1_sequence": "7", "success": "false", "reason": "deposit failed; blocked address"}},
		Event{Kind: KindWInit, Attrs: map[string]string{"l2_sequence": "3", "from": "init1to", "to": "init1from", "denom": "l2/x", "base_denom": "uinit", "amount": "5"}})
	r := s.eval(l1, "ROOT")
	if r.State != StatePendingError || r.Status != StatePending || !eq(hopStates(r), []string{OPInitReceived, OPInitSent}) ||
		r.TransferAssetRelease == nil || r.TransferAssetRelease.ChainID != l1 || r.TransferAssetRelease.Released || r.Error == nil {
		t.Fatalf("refund on its way: %+v", r)
	}
	if w := r.TransferSequence[1].OPInitTransfer.Withdrawal; w == nil || w.State != WithdrawalWaitingOutput || w.L2Sequence != "3" {
		t.Fatalf("refund withdrawal %+v", w)
	}
	s.tx(l1, "CLAIM", Event{Kind: KindWFin, Attrs: map[string]string{"bridge_id": "2", "l2_sequence": "3", "output_index": "3"}})
	r = s.eval(l1, "ROOT")
	if r.State != StateCompletedError || r.Status != StatusCompleted || !eq(hopStates(r), []string{OPInitReceived, OPInitReceived}) ||
		!r.TransferAssetRelease.Released || r.TransferAssetRelease.Denom != "uinit" || r.NextBlockingTransfer != nil {
		t.Fatalf("refunded: %+v", r)
	}
}

// TestEvalForwardRetry: a packet-forward hop that times out with retries left is sent again
// from the timeout; the transfer succeeds through the retry.
func TestEvalForwardRetry(t *testing.T) {
	s := newScenario(t)
	const a, b, c = "minimove-devnet-1", "initia-devnet-1", "miniwasm-devnet-1"
	ab, ba, bc, cb := s.channel(a, b), s.channel(b, a), s.channel(b, c), s.channel(c, b)
	data := map[string]string{"denom": "uusdc", "amount": "9", "sender": "s", "receiver": "pfm", "memo": `{"forward":{}}`}
	fwd := map[string]string{"denom": "transfer/" + ba + "/uusdc", "amount": "9", "sender": "pfm", "receiver": "r"}
	success := `{"result":"AQ=="}`
	s.tx(a, "ROOT", ok(), packet(KindSend, ab, ba, "1", data, ""))
	s.tx(b, "RECV1", packet(KindRecv, ab, ba, "1", data, ""), packet(KindSend, bc, cb, "5", fwd, ""))
	s.tx(b, "TIMEOUT5", packet(KindTimeout, bc, cb, "5", fwd, ""), packet(KindSend, bc, cb, "6", fwd, ""))
	r := s.eval(a, "ROOT")
	if r.State != StatePending || !eq(hopStates(r), []string{TransferReceived, TransferFailure, TransferPending}) {
		t.Fatalf("retrying: %s %v", r.State, hopStates(r))
	}
	s.tx(c, "RECV6", packet(KindRecv, bc, cb, "6", fwd, ""), packet(KindWAck, bc, cb, "6", fwd, success))
	s.tx(b, "ACK6", packet(KindAck, bc, cb, "6", fwd, ""), packet(KindWAck, ab, ba, "1", data, success))
	s.tx(a, "ACK1", packet(KindAck, ab, ba, "1", data, ""))
	r = s.eval(a, "ROOT")
	if r.State != StateCompletedSuccess || r.Status != StatusCompleted || !eq(hopStates(r), []string{TransferSuccess, TransferFailure, TransferSuccess}) ||
		r.TransferAssetRelease == nil || r.TransferAssetRelease.ChainID != c || !r.TransferAssetRelease.Released {
		t.Fatalf("delivered through the retry: %+v %v", r, hopStates(r))
	}
	if p := r.TransferSequence[1].IBCTransfer.PacketTxs; p.TimeoutTx == nil || p.TimeoutTx.TxHash != "TIMEOUT5" || p.Error.Type != PacketErrorTimeout {
		t.Fatalf("timed-out hop %+v", p)
	}
}

// TestEvalUnseenAndAbandoned: a registered hash never seen stays submitted, then is abandoned.
func TestEvalUnseenAndAbandoned(t *testing.T) {
	s := newScenario(t)
	e := &evaluation{ctx: context.Background(), st: s.st, reg: s.reg, now: time.Now()}
	if r := e.evaluate("initia-devnet-1", "NOPE", time.Now(), time.Hour); r.State != StateSubmitted || r.Status != StateSubmitted ||
		len(e.waits) != 1 || e.waits[0] != (EventKey{"initia-devnet-1", KindTx, "NOPE"}) || e.recheck.IsZero() {
		t.Fatalf("unseen: %+v waits %v", r, e.waits)
	}
	e = &evaluation{ctx: context.Background(), st: s.st, reg: s.reg, now: time.Now()}
	r := e.evaluate("initia-devnet-1", "NOPE", time.Now().Add(-2*time.Hour), time.Hour)
	if r.State != StateAbandoned || r.Status != StatusCompleted || r.Error == nil {
		t.Fatalf("abandoned: %+v", r)
	}
	checkOneEmptyTransfer(t, r)
}

// A tx that ends without starting a transfer answers one transfer with its state and error
// and an empty sequence (Skip's client reads transfers[0].state to end a route); one still
// unseen answers none.
func TestEvalEndedWithoutTransfer(t *testing.T) {
	s := newScenario(t)
	s.tx("initia-devnet-1", "FAILED", Event{Kind: KindTx, Attrs: map[string]string{"code": "5", "log": "insufficient funds"}})
	s.tx("initia-devnet-1", "SEND", ok())
	for _, c := range []struct{ hash, state string }{{"FAILED", StateCompletedError}, {"SEND", StateCompletedSuccess}} {
		r := s.eval("initia-devnet-1", c.hash)
		if r.State != c.state {
			t.Fatalf("%s: state %s, want %s", c.hash, r.State, c.state)
		}
		checkOneEmptyTransfer(t, r)
	}
	e := &evaluation{ctx: context.Background(), st: s.st, reg: s.reg, now: time.Now()}
	if r := e.evaluate("initia-devnet-1", "UNSEEN", time.Now(), time.Hour); len(r.Transfers) != 0 {
		t.Fatalf("unseen tx answers transfers %+v", r.Transfers)
	}
}

func checkOneEmptyTransfer(t *testing.T, r StatusResponse) {
	t.Helper()
	if len(r.Transfers) != 1 || r.Transfers[0].State != r.State || r.Transfers[0].Error != r.Error ||
		r.Transfers[0].TransferSequence == nil || len(r.Transfers[0].TransferSequence) != 0 {
		t.Fatalf("%s: transfers %+v, want one with the tx's state and error and an empty sequence", r.State, r.Transfers)
	}
}
