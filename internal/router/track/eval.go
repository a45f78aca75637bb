package track

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// outcome of one leg (a hop and everything it started).
type outcome int

const (
	pending   outcome = iota
	delivered         // the funds reached the destination
	failed            // the leg failed and the funds were released elsewhere (refund)
)

type legResult struct {
	out        outcome
	pendingErr bool // an error is on its way back; funds not released yet
	release    *AssetRelease
	err        *StatusError
	// abandoned: the leg stalled past the evaluation's window (a LayerZero packet never
	// delivered); it is terminal, STATE_ABANDONED.
	abandoned bool
}

// evaluation computes a transfer's status from the stored events. It is a pure function of
// the store's content (plus the withdrawal probe), so any replica computes the same answer and
// a restart simply evaluates again.
type evaluation struct {
	ctx     context.Context
	st      eventSource
	reg     *registry.Registry
	probe   WithdrawalProber
	now     time.Time
	halts   map[string]*ChainMismatch // chains whose scan is halted: a tx unseen there is not abandoned
	waits   []EventKey
	recheck time.Time // zero: only events wake this transfer
	err     error     // first store/probe error: the evaluation is incomplete and retried
	// missing: the source (a batch) did not hold a lookup's answer yet; the lookup was recorded,
	// taken as "nothing" so the walk goes on collecting the others, and the result is discarded.
	missing bool
	// abandonAfter is the window of evaluate: also how long a hop may stall (layerzero.go).
	abandonAfter time.Duration
}

// eventSource is what an evaluation reads. *Store answers each lookup with a query; a batch
// (batch.go) answers from what it loaded for many transfers at once and says errMissing for
// what it has not loaded yet.
type eventSource interface {
	Find(ctx context.Context, chainID, kind, key string) (*Event, error)
	MsgEvents(ctx context.Context, chainID string, height int64, txIndex, msgIndex int, kind string) ([]Event, error)
	TxEvents(ctx context.Context, chainID, hash string) ([]Event, error)
	ChainTime(ctx context.Context, chainID string) (time.Time, error)
}

// failed reports whether a source error ends the walk: a real error does; errMissing only
// marks the evaluation incomplete.
func (e *evaluation) failed(err error) bool {
	if errors.Is(err, errMissing) {
		e.missing = true
		return false
	}
	e.err = err
	return true
}

func (e *evaluation) wait(chainID, kind, key string) {
	e.waits = append(e.waits, EventKey{chainID, kind, key})
}

func (e *evaluation) find(chainID, kind, key string) *Event {
	if e.err != nil || chainID == "" {
		return nil
	}
	ev, err := e.st.Find(e.ctx, chainID, kind, key)
	if err != nil {
		e.failed(err)
		return nil
	}
	if ev == nil {
		e.wait(chainID, kind, key)
	}
	return ev
}

// sameMsg returns the events of kind in ev's tx emitted by the same message (msg_index),
// before (before=true) or after ev: what a packet receipt or a deposit finalization started.
func (e *evaluation) sameMsg(ev *Event, kind string, before bool) []Event {
	if e.err != nil {
		return nil
	}
	evs, err := e.st.MsgEvents(e.ctx, ev.ChainID, ev.Height, ev.TxIndex, ev.MsgIndex, kind)
	if err != nil {
		e.failed(err)
		return nil
	}
	var out []Event
	for _, x := range evs {
		if (before && x.Pos < ev.Pos) || (!before && x.Pos > ev.Pos) {
			out = append(out, x)
		}
	}
	return out
}

// ExplorerLink is the link given for a tx: the chain's REST rendering of it (the registry
// names no block explorer for the devnet chains).
func ExplorerLink(reg *registry.Registry, chainID, hash string) string {
	if c := reg.Chain(chainID); c != nil && len(c.REST) > 0 {
		return strings.TrimRight(c.REST[0], "/") + "/cosmos/tx/v1beta1/txs/" + hash
	}
	return ""
}

func (e *evaluation) chainTx(ev *Event) *ChainTx {
	if c := e.reg.Chain(ev.ChainID); c != nil && c.Type == registry.ChainTypeEVM {
		return evmChainTx(c, ev) // evmscan.go
	}
	return &ChainTx{ChainID: ev.ChainID, TxHash: ev.TxHash, ExplorerLink: ExplorerLink(e.reg, ev.ChainID, ev.TxHash),
		OnChainAt: ev.Time.UTC().Format(time.RFC3339)}
}

func strp(s string) *string { return &s }

// evaluate computes the status of the tx hash on chainID registered at created.
func (e *evaluation) evaluate(chainID, hash string, created time.Time, abandonAfter time.Duration) StatusResponse {
	resp := e.status(chainID, hash, created, abandonAfter)
	if len(resp.Transfers) == 0 && Terminal(resp.State) {
		// A tx that ended without starting a transfer (failed, abandoned, or a plain send)
		// still answers one transfer carrying its state and error: Skip does (an out-of-gas
		// tx is STATE_COMPLETED_ERROR with an empty transfer_sequence), and Skip's client
		// decides a route is over from transfers[0].state, so an empty list would leave a
		// wallet polling forever.
		resp.Transfers = []TransferStatus{{State: resp.State, TransferSequence: []TransferEvent{}, Error: resp.Error}}
	}
	return resp
}

func (e *evaluation) status(chainID, hash string, created time.Time, abandonAfter time.Duration) StatusResponse {
	e.abandonAfter = abandonAfter
	resp := submitted()
	root := e.find(chainID, KindTx, hash)
	if root == nil {
		switch {
		case e.halts[chainID] != nil:
			// Its chain is no longer scanned: not seen says nothing (noteHalts says why).
		case e.err == nil && abandonAfter > 0 && e.now.Sub(created) > abandonAfter:
			resp.State, resp.Status = StateAbandoned, StatusOf(StateAbandoned)
			resp.Error = &StatusError{Type: StatusErrorIndexing, Message: fmt.Sprintf("tx %s not seen on %s within %s", hash, chainID, abandonAfter)}
		case abandonAfter > 0:
			e.recheck = created.Add(abandonAfter + time.Second)
		}
		return resp
	}
	e.waits = nil // the tx row exists: nothing waits on it any more
	if code := root.Attrs["code"]; code != "0" {
		c, _ := strconv.ParseUint(code, 10, 32)
		resp.State, resp.Status = StateCompletedError, StatusOf(StateCompletedError)
		resp.Error = &StatusError{Type: StatusErrorExecution, Message: fmt.Sprintf("tx failed on %s: %s", chainID, root.Attrs["log"]),
			Details: &ErrorDetails{Code: uint32(c), Message: root.Attrs["log"]}}
		return resp
	}
	evs, err := e.st.TxEvents(e.ctx, chainID, hash)
	if err != nil {
		e.failed(err)
		return resp
	}
	resp.State = StatePending
	allDone, anyFail, anyPendErr, anyAbandoned := true, false, false, false
	for i := range evs {
		start := &evs[i]
		if !startKinds[start.Kind] {
			continue
		}
		var seq []TransferEvent
		r := e.follow(start, &seq)
		ts := TransferStatus{TransferSequence: seq, TransferAssetRelease: r.release, Error: r.err}
		switch {
		case r.out == delivered:
			ts.State = StateCompletedSuccess
		case r.out == failed:
			ts.State, anyFail = StateCompletedError, true
		case r.abandoned:
			ts.State, anyAbandoned = StateAbandoned, true
		case r.pendingErr:
			ts.State, anyPendErr, allDone = StatePendingError, true, false
		default:
			ts.State, allDone = StatePending, false
		}
		if r.out == pending && !r.abandoned {
			ts.NextBlockingTransfer = blocking(seq)
		}
		resp.Transfers = append(resp.Transfers, ts)
		resp.TransferSequence = append(resp.TransferSequence, seq...)
	}
	switch {
	case len(resp.Transfers) == 0:
		// The tx moved nothing across chains (e.g. a bank send): it is complete once included.
		resp.State = StateCompletedSuccess
	case allDone && anyFail:
		resp.State = StateCompletedError
	case allDone && anyAbandoned:
		resp.State = StateAbandoned
	case allDone:
		resp.State = StateCompletedSuccess
	case anyPendErr:
		resp.State = StatePendingError
	}
	resp.Status = StatusOf(resp.State)
	if len(resp.Transfers) > 0 {
		first := resp.Transfers[0]
		resp.NextBlockingTransfer, resp.TransferAssetRelease, resp.Error = first.NextBlockingTransfer, first.TransferAssetRelease, first.Error
		if resp.NextBlockingTransfer != nil {
			// indexes in the flat sequence: the first transfer's entries come first
			resp.NextBlockingTransfer = &NextBlocking{first.NextBlockingTransfer.TransferSequenceIndex}
		}
	}
	return resp
}

// blocking is the first hop not settled yet.
func blocking(seq []TransferEvent) *NextBlocking {
	for i, t := range seq {
		if !t.settled() {
			return &NextBlocking{i}
		}
	}
	if len(seq) > 0 {
		return &NextBlocking{len(seq) - 1}
	}
	return nil
}

// follow evaluates the leg a start event (a bridge's Watch with Starts) begins: each
// bridge's hops are followed by the evaluation below of its own events.
func (e *evaluation) follow(ev *Event, seq *[]TransferEvent) legResult {
	switch ev.Kind {
	case KindSend:
		return e.ibc(ev, seq)
	case KindDInit:
		return e.deposit(ev, seq)
	case KindWInit:
		return e.withdrawal(ev, seq)
	case KindLZSent:
		return e.layerZero(ev, seq)
	}
	return legResult{}
}

// senderDenom is the local denom of an ICS-20 packet denom on its sending chain.
func senderDenom(path string) string {
	if t, err := denom.ParseTrace(path); err == nil {
		return t.IBCDenom()
	}
	return path
}

func (e *evaluation) ibc(ev *Event, seq *[]TransferEvent) legResult {
	a := ev.Attrs
	pd := parsePacket(a)
	src := ev.ChainID
	dst := ""
	if c := e.reg.Chain(src); c != nil {
		if ch, ok := c.Channel(a["packet_src_channel"]); ok {
			dst = ch.CounterpartyChainID
		}
	}
	hop := &IBCTransferInfo{FromChainID: src, ToChainID: dst, SrcChainID: src, DstChainID: dst, State: TransferPending,
		PacketTxs: Packet{SendTx: e.chainTx(ev)}}
	*seq = append(*seq, TransferEvent{IBCTransfer: hop})
	dstKey := packetKey(a["packet_dst_port"], a["packet_dst_channel"], a["packet_sequence"])
	refund := &AssetRelease{ChainID: src, Denom: senderDenom(pd.Denom), Amount: strp(pd.Amount), Released: true}

	if to := e.find(src, KindTimeout, ev.Key); to != nil {
		hop.State = TransferFailure
		hop.PacketTxs.TimeoutTx = e.chainTx(to)
		hop.PacketTxs.Error = &PacketError{Type: PacketErrorTimeout, Message: "packet timed out"}
		// A packet-forward hop with retries left is sent again by the timeout itself.
		if retry := e.sameMsg(to, KindSend, false); len(retry) > 0 {
			return e.ibc(&retry[0], seq)
		}
		return legResult{out: failed, release: refund,
			err: &StatusError{Type: StatusErrorTransfer, Message: fmt.Sprintf("IBC transfer %s → %s timed out; refunded on %s", src, dst, src)}}
	}
	ack := e.find(src, KindAck, ev.Key)
	var recv, wack *Event
	var child *legResult
	if dst != "" {
		recv = e.find(dst, KindRecv, dstKey)
	}
	var arrived *AssetRelease
	if recv != nil {
		hop.State = TransferReceived
		hop.PacketTxs.ReceiveTx = e.chainTx(recv)
		if fwd := e.sameMsg(recv, KindSend, false); len(fwd) > 0 {
			c := e.ibc(&fwd[0], seq)
			child = &c
		}
		wack = e.find(dst, KindWAck, dstKey)
		if t, _, err := denom.ReceiveDenom(pd.Denom, a["packet_src_port"], a["packet_src_channel"], a["packet_dst_port"], a["packet_dst_channel"]); err == nil {
			arrived = &AssetRelease{ChainID: dst, Denom: t.IBCDenom(), Amount: strp(pd.Amount), Released: true}
		}
	}
	ackOK, ackErr := true, ""
	if wack != nil {
		ackOK, ackErr = ackResult(wack.Attrs)
	}
	// The hop is settled once the sender saw the ack and we know what it said (the receiver's
	// write_acknowledgement; when the receiving chain is not watched, the ack alone).
	settled := ack != nil && (wack != nil || dst == "")
	if ack != nil {
		hop.PacketTxs.AcknowledgeTx = e.chainTx(ack)
	}
	if wack != nil && !ackOK {
		hop.PacketTxs.Error = &PacketError{Type: PacketErrorAck, Message: ackErr}
	}
	if settled {
		if !ackOK {
			hop.State = TransferFailure
			return legResult{out: failed, release: refund,
				err: &StatusError{Type: StatusErrorTransfer, Message: fmt.Sprintf("IBC transfer %s → %s failed: %s; refunded on %s", src, dst, ackErr, src)}}
		}
		hop.State = TransferSuccess
		if child != nil {
			return *child
		}
		return legResult{out: delivered, release: arrived}
	}
	r := legResult{out: pending, pendingErr: wack != nil && !ackOK}
	if child != nil {
		r.pendingErr = r.pendingErr || child.out == failed || child.pendingErr
		if child.out != failed {
			r.release = child.release
		}
	} else if wack != nil && ackOK {
		r.release = arrived // delivered; the hop settles when the ack reaches the sender
	}
	if r.pendingErr {
		pend := *refund
		pend.Released = false
		r.release = &pend
	}
	return r
}

func (e *evaluation) l1() *registry.Chain {
	for _, c := range e.reg.Chains {
		if c.L1 {
			return c
		}
	}
	return nil
}

func (e *evaluation) rollup(bridgeID string) *registry.Chain {
	id, err := strconv.ParseUint(bridgeID, 10, 64)
	if err != nil {
		return nil
	}
	for _, c := range e.reg.Chains {
		if c.BridgeID == id {
			return c
		}
	}
	return nil
}

func (e *evaluation) deposit(ev *Event, seq *[]TransferEvent) legResult {
	a := ev.Attrs
	l2 := e.rollup(a["bridge_id"])
	hop := &OPInitTransferInfo{FromChainID: ev.ChainID, State: OPInitSent, Txs: OPInitTxs{SendTx: e.chainTx(ev)}}
	*seq = append(*seq, TransferEvent{OPInitTransfer: hop})
	if l2 == nil {
		return legResult{out: pending, release: &AssetRelease{ChainID: ev.ChainID, Denom: a["l1_denom"], Amount: strp(a["amount"])}}
	}
	hop.ToChainID = l2.ID
	atL2 := &AssetRelease{ChainID: l2.ID, Denom: a["l2_denom"], Amount: strp(a["amount"]), Released: true}
	fin := e.find(l2.ID, KindDFin, a["l1_sequence"])
	if fin == nil {
		pend := *atL2
		pend.Released = false
		return legResult{out: pending, release: &pend}
	}
	hop.State = OPInitReceived
	hop.Txs.ReceiveTx = e.chainTx(fin)
	reason := fin.Attrs["reason"]
	switch {
	case fin.Attrs["success"] == "true":
		// A hook that moved the funds on (e.g. an IBC transfer) continues the route.
		if sends := e.sameMsg(fin, KindSend, true); len(sends) > 0 {
			return e.ibc(&sends[0], seq)
		}
		return legResult{out: delivered, release: atL2}
	case strings.HasPrefix(reason, "hook failed"):
		// The deposit is credited; only the hook failed. The funds stay with the recipient.
		hop.Error = strp(reason)
		return legResult{out: failed, release: atL2, err: &StatusError{Type: StatusErrorTransfer,
			Message: fmt.Sprintf("deposit to %s arrived but its hook failed: %s", l2.ID, reason)}}
	default:
		// The deposit could not be credited: opchild sends it back through a withdrawal.
		hop.Error = strp(reason)
		back := &AssetRelease{ChainID: ev.ChainID, Denom: a["l1_denom"], Amount: strp(a["amount"])}
		serr := &StatusError{Type: StatusErrorTransfer, Message: fmt.Sprintf("deposit to %s failed: %s; refunded through a withdrawal to %s", l2.ID, reason, ev.ChainID)}
		if ws := e.sameMsg(fin, KindWInit, false); len(ws) > 0 {
			r := e.withdrawal(&ws[0], seq)
			back.Released = r.out == delivered
			if r.out == delivered {
				return legResult{out: failed, release: back, err: serr}
			}
		}
		return legResult{out: pending, pendingErr: true, release: back, err: serr}
	}
}

func (e *evaluation) withdrawal(ev *Event, seq *[]TransferEvent) legResult {
	a := ev.Attrs
	l2 := e.reg.Chain(ev.ChainID)
	l1 := e.l1()
	hop := &OPInitTransferInfo{FromChainID: ev.ChainID, State: OPInitSent, Txs: OPInitTxs{SendTx: e.chainTx(ev)}}
	*seq = append(*seq, TransferEvent{OPInitTransfer: hop})
	if l2 == nil || l1 == nil || l2.BridgeID == 0 {
		return legResult{out: pending}
	}
	bridge := strconv.FormatUint(l2.BridgeID, 10)
	hop.ToChainID = l1.ID
	wd := &Withdrawal{State: WithdrawalWaitingOutput, BridgeID: bridge, L2Sequence: a["l2_sequence"], ExecutorURL: l2.ExecutorURI}
	hop.Withdrawal = wd
	atL1 := &AssetRelease{ChainID: l1.ID, Denom: a["base_denom"], Amount: strp(a["amount"])}
	if fin := e.find(l1.ID, KindWFin, bridge+"/"+a["l2_sequence"]); fin != nil {
		hop.State, wd.State = OPInitReceived, WithdrawalClaimed
		wd.OutputIndex = fin.Attrs["output_index"]
		hop.Txs.ReceiveTx = e.chainTx(fin)
		atL1.Released = true
		return legResult{out: delivered, release: atL1}
	}
	if e.err != nil || e.missing || e.probe == nil {
		// An incomplete walk (missing) is done again once the batch has loaded what it
		// lacked: the probe, an HTTP call, waits for that.
		return legResult{out: pending, release: atL1}
	}
	seqNum, _ := strconv.ParseUint(a["l2_sequence"], 10, 64)
	p, err := e.probe.Probe(e.ctx, l1, l2, seqNum)
	if err != nil {
		e.err = err
		return legResult{out: pending, release: atL1}
	}
	e.recheck = e.now.Add(p.Recheck)
	if p.OutputIndex > 0 {
		wd.OutputIndex = strconv.FormatUint(p.OutputIndex, 10)
		wd.ClaimableAt = p.ClaimableAt.UTC().Format(time.RFC3339)
		wd.State = WithdrawalFinalizationPeriod
		l1Time, err := e.st.ChainTime(e.ctx, l1.ID)
		if err != nil && e.failed(err) {
			return legResult{out: pending, release: atL1}
		}
		if err == nil && !l1Time.Before(p.ClaimableAt) {
			wd.State = WithdrawalClaimable
		}
	}
	return legResult{out: pending, release: atL1}
}
