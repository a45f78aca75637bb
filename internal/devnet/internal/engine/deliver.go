package engine

// Deliver: one tx executed atomically against the block's overlay (fee, ante events and
// sequences, then every message through its module's handler).

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Gas model: deterministic, roughly the SDK's orders of magnitude.
const (
	gasTxBase     = 80000
	gasPerTxByte  = 10
	gasPerSig     = 1000
	gasPerMsg     = 5000
	gasPerSend    = 12000
	gasPerEvent   = 250
	gasPerKVWrite = 2000
	// simSignatureBytes is what a simulation charges for each empty signature: a 65-byte
	// signature and the fee coin the signed tx will carry.
	simSignatureBytes = 110
)

func (c *Chain) deliver(bo *overlay, height int64, btime time.Time, raw []byte, index uint32) TxResult {
	return c.execute(bo, height, btime, raw, index, nil)
}

// simulation is what a simulated execution changes: the flavour it renders bank movements
// with (a fork of the chain's, when that keeps memory).
type simulation struct {
	bank sim.BankFlavor
}

// execute runs one tx against bo: delivery, or with s a simulation (ante in simulate mode,
// no gas limit, no fee carried to the next block's distribution; the caller drops bo).
func (c *Chain) execute(bo *overlay, height int64, btime time.Time, raw []byte, index uint32, s *simulation) TxResult {
	hash := sha256.Sum256(raw)
	tx, err := DecodeTx(raw)
	if err != nil {
		return TxResult{Code: codeTxDecode, Codespace: codespaceSDK, Log: err.Error() + ": tx parse error"}
	}
	res := TxResult{GasWanted: int64(tx.Fee.GasLimit)}
	anteO := newOverlay(bo)
	mode := modeDeliver
	if s != nil {
		mode = modeSimulate
	}
	checked, cerr := c.anteIn(anteO, tx, mode)
	if cerr != nil {
		res.Code, res.Codespace, res.Log = cerr.Code, cerr.Codespace, cerr.Log
		return res
	}
	env := c.newEnv(anteO, height, btime, hash[:])
	env.gas = gasTxBase + gasPerTxByte*uint64(len(raw)) + gasPerSig*uint64(len(tx.Signers))
	if s != nil {
		env.bank, env.simulating = s.bank, true
		// The signed tx is longer than the simulated one by its signatures (sent empty) and
		// its fee: charge their bytes as x/auth's ConsumeTxSizeGasDecorator does in simulate.
		for _, sig := range tx.Signatures {
			if len(sig) == 0 {
				env.gas += gasPerTxByte * simSignatureBytes
			}
		}
	}
	// fee: deducted unless zero, as the SDK does (fee.go)
	payer := c.feePayer(tx, checked)
	if !coinsZero(tx.Fee.Amount) {
		var cerr *sim.CodedError
		if cerr = feeCoinsError(tx.Fee.Amount); cerr == nil {
			if err := env.sendRaw(payer, address.ModuleAccount("fee_collector"), tx.Fee.Amount); err != nil {
				cerr = sdkErr(codeInsufficientFunds, err.Error()+": insufficient funds")
			}
		}
		if cerr != nil {
			res.Code, res.Codespace, res.Log = cerr.Code, cerr.Codespace, cerr.Log
			res.GasUsed = int64(env.gas)
			return res
		}
		if s == nil {
			c.feesPrev = append(c.feesPrev, tx.Fee.Amount...)
		}
	}
	ante := env.events
	ante = append(ante, sim.Event{Type: "tx", Attributes: []sim.Attribute{
		{Key: "fee", Value: CoinsString(tx.Fee.Amount), Index: true},
		{Key: "fee_payer", Value: Bech32(c.cfg.Bech32Prefix, payer), Index: true}}})
	for i, si := range tx.Signers {
		ante = append(ante, sim.Event{Type: "tx", Attributes: []sim.Attribute{
			{Key: "acc_seq", Value: fmt.Sprintf("%s/%d", Bech32(c.cfg.Bech32Prefix, checked.signers[i]), si.Sequence), Index: true}}})
	}
	for _, s := range tx.Signatures {
		ante = append(ante, sim.Event{Type: "tx", Attributes: []sim.Attribute{
			{Key: "signature", Value: b64(s), Index: true}}})
	}
	for i, si := range tx.Signers {
		a := checked.signers[i]
		// Read again (not checked.accs): a tx signed twice by one account bumps it twice.
		acc, ok := getAccount(anteO, a)
		if !ok {
			res.Code, res.Codespace = codeInternal, codespaceUndefined
			res.Log = fmt.Sprintf("signer %s vanished between ante and sequence bump", Bech32(c.cfg.Bech32Prefix, a))
			return res
		}
		acc.Sequence++
		if acc.PubKeyType == "" {
			acc.PubKeyType, acc.PubKey = si.PubKeyType, si.PubKey
		}
		putAccount(anteO, a, acc)
	}
	anteGas := env.gas
	anteO.commitTo(bo)
	res.Events = ante

	msgs := checked.msgs
	msgO := newOverlay(bo)
	menv := c.newEnv(msgO, height, btime, hash[:])
	menv.gas = anteGas
	if s != nil {
		menv.bank, menv.simulating = s.bank, true
	}
	menv.txIndex = index
	anteIncremented := true // IncrementSequenceDecorator ran: the flag minievm's MsgCall reads
	menv.seqFlag = &anteIncremented
	var events []sim.Event
	var responses []*anypb.Any
	fail := func(i int, err error) TxResult {
		var ce *sim.CodedError
		if errors.As(err, &ce) {
			res.Code, res.Codespace = ce.Code, ce.Codespace
			res.Log = fmt.Sprintf("failed to execute message; message index: %d: %s", i, ce.Log)
		} else {
			res.Code, res.Codespace = codeInternal, codespaceUndefined
			res.Log = fmt.Sprintf("failed to execute message; message index: %d: %s", i, err.Error())
		}
		res.GasUsed = int64(menv.gas)
		return res
	}
	for i, m := range msgs {
		url := tx.Msgs[i].TypeUrl
		h, ok := c.handlers[url]
		if !ok {
			return fail(i, sdkErr(codeUnknownRequest, fmt.Sprintf("can't route message %s: unknown request", url)))
		}
		menv.events = nil
		menv.response = nil
		menv.gas += gasPerMsg
		writesBefore := len(msgO.order)
		if err := safeCall(h, menv, m); err != nil {
			return fail(i, err)
		}
		menv.gas += gasPerKVWrite*uint64(len(msgO.order)-writesBefore) + gasPerEvent*uint64(len(menv.events))
		sender := msgSigner(m)
		if sender == "" {
			sender = Bech32(c.cfg.Bech32Prefix, payer)
		}
		attrs := []sim.Attribute{{Key: "action", Value: url, Index: true}, {Key: "sender", Value: sender, Index: true}}
		if !hasModuleAttr(menv.events) {
			attrs = append(attrs, sim.Attribute{Key: "module", Value: moduleOf(url), Index: true})
		}
		idx := sim.Attribute{Key: "msg_index", Value: strconv.Itoa(i), Index: true}
		events = append(events, sim.Event{Type: "message", Attributes: append(attrs, idx)})
		for _, ev := range menv.events {
			ev.Attributes = append(append([]sim.Attribute(nil), ev.Attributes...), idx)
			events = append(events, ev)
		}
		if menv.response != nil {
			responses = append(responses, menv.response)
		} else {
			responses = append(responses, &anypb.Any{TypeUrl: url + "Response"})
		}
	}
	if s == nil && menv.gas > tx.Fee.GasLimit {
		res.Code, res.Codespace = codeOutOfGas, codespaceSDK
		res.Log = fmt.Sprintf("out of gas in location: ReadPerByte; gasWanted: %d, gasUsed: %d: out of gas", tx.Fee.GasLimit, menv.gas)
		res.GasUsed = int64(menv.gas)
		return res
	}
	msgO.commitTo(bo)
	res.Events = append(res.Events, events...)
	res.GasUsed = int64(menv.gas)
	res.Data = encodeTxMsgData(responses)
	return res
}

// safeCall runs a handler, turning a panic into the failure baseapp reports for one (a
// module bug must fail its tx, not stop the chain).
func safeCall(h sim.Handler, env sim.Env, m proto.Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &sim.CodedError{Codespace: codespaceUndefined, Code: codePanic, Log: "panic message redacted to hide potential sensitive info"}
		}
	}()
	return h(env, m)
}

func hasModuleAttr(evs []sim.Event) bool {
	for _, e := range evs {
		for _, a := range e.Attributes {
			if a.Key == "module" {
				return true
			}
		}
	}
	return false
}

// moduleOf is the second dot-segment of a message type URL ("/cosmos.bank.v1beta1.MsgSend" → bank).
func moduleOf(url string) string {
	parts := strings.Split(strings.TrimPrefix(url, "/"), ".")
	if len(parts) > 1 {
		return parts[1]
	}
	return ""
}
