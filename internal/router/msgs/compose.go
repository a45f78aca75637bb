package msgs

// The rules that combine bridges in one transaction. A bridge (router/bridge) builds the
// message of its own hop; these rules decide what that message carries for the hops around
// it, and they are all here:
//
//  1. A wrapper token leaving minievm (toRemote in the source tx): the route starts from
//     the ERC20Wrapper's 18-decimal token, and the source tx is approve + the wrapper's
//     toRemoteAndOPWithdraw or toRemoteAndIBCTransfer, which convert and send in one call
//     (unwrapWithdrawMsgs, unwrapIBCMsgs). Only an OPinit withdrawal or an IBC transfer can
//     take the coin away, and only first in its transaction.
//  2. A wrapper token after an OPinit deposit (toLocal in the op hook): the deposit is
//     minted to the hook's signer, whose signed hook approves and converts it for the
//     recipient (WrapHook, wrapHook; described below).
//  3. A wrapper token after an IBC arrival (toLocal in an ibc-hooks memo): the last ICS-20
//     arrival of a transaction pays the wrapper contract and carries its call (wrapMemo).
//  4. An OPinit deposit that continues the route (an amount hook): the operations after the
//     deposit in its transaction run on the rollup in the hook the recipient signed
//     beforehand (checkHook; Builder.OPHook builds that hook's IBC transfer).
//  5. An OPinit deposit after a LayerZero hop into an L1 with an OPinit composer (a compose
//     on arrival): the OFT send pays the composer and carries its compose message (the
//     rollup's bridge id and the recipient there); the executor's lz_compose makes the
//     deposit, so the hop and the deposit are one transaction (composeDeposit).
//
// Packet-forward memos are not a rule between bridges: a run of IBC hops is one bridge's
// message (bridge.Transfers).
//
// Rule 2 in detail. The op hook the Initia router serves: a deposit into a minievm rollup that ends in the
// ERC20Wrapper's 18-decimal token carries, in MsgInitiateTokenDeposit.data, a tx the user
// signed on the rollup beforehand; the rollup's bridge hook runs it right after minting the
// 6-decimal coin to the signer. It holds two MsgCalls:
//
//  1. approve(wrapper, 2^256−1) on the bridged coin's ERC-20 (selector 0x095ea7b3);
//  2. toLocal(receiver, bridgedDenom, 6) on the wrapper (selector 0x701dcf21), which
//     converts min(allowance, balance) of the signer's bridged coin at execution time and
//     mints ×10^12 of the wrapped token to receiver.
//
// Neither call names an amount, which is why clients ask for the hook without one:
// InterwovenKit and initia.js POST /op-hook with six fields and no amount_in
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/bridge/data/tx.ts:355-366,
// initia-labs/initia.js@a60dc6b:src/bridge/router-client.ts:221-232), and initia.js says
// what the hook is: "opHook is minievm-only (ERC-20 6d↔18d wrapping)", a tx "the L2's
// handleBridgeHook decodes and executes" (src/bridge/bridge.ts:175-183). The two calls are
// what minievm's own wrapper test does after a deposit
// (initia-labs/minievm@3470dff:integration-tests/wrapper_test.go: approve, then toLocal).
//
// The allowance is the maximum rather than an amount: the wrapper only ever pulls from the
// caller of toLocal (transferFrom(msg.sender, …)), so the allowance lets nobody else move the
// signer's coins, and the hook stays valid whatever the final amount. toLocal converting
// min(allowance, balance) also converts a bridged balance the signer already held; the
// signer is the deposit's recipient, so that balance is theirs and ends with them wrapped.

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/cosmos/btcutil/bech32"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	transferv1 "github.com/rollgate/rollgate/internal/chain/protos/ibc/applications/transfer/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/bridge"
	"github.com/rollgate/rollgate/internal/router/route"
)

// WrapperRemoteDecimals is the precision toLocal is told the bridged coin has (the coin's own
// ERC-20 reports 0 decimals on minievm; wallets and the registry give such coins 6).
const WrapperRemoteDecimals = 6

var wrapABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[
{"type":"function","name":"approve","inputs":[{"name":"spender","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"type":"bool"}]},
{"type":"function","name":"toLocal","inputs":[{"name":"receiver","type":"address"},{"name":"remoteDenom","type":"string"},{"name":"remoteDecimals","type":"uint8"}],"outputs":[]},
{"type":"function","name":"toRemoteAndOPWithdraw","inputs":[{"name":"receiver","type":"string"},{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"}],"outputs":[]},
{"type":"function","name":"toRemoteAndIBCTransfer","inputs":[{"name":"localDenom","type":"string"},{"name":"localAmount","type":"uint256"},{"name":"channel","type":"string"},{"name":"receiver","type":"string"},{"name":"timeout","type":"uint256"},{"name":"memo","type":"string"}],"outputs":[]}
]`))
	if err != nil {
		panic(err) // constant input: a failure is a programming error caught by every test
	}
	return a
}()

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// WrapHook is what the wrap hook needs: who signs it on which chain, who receives the
// wrapped token, the wrapper, and the bridged coin with its ERC-20.
type WrapHook struct {
	Sender       string // the signer on the rollup (bech32), the deposit's recipient
	Receiver     string // the wrapped token's receiver: bech32 or 0x, 20 bytes
	Wrapper      string // ERC20Wrapper address (0x)
	BridgedDenom string // the deposit's coin on the rollup (l2/…)
	BridgedToken string // that coin's ERC-20 address (0x)
}

// Msgs returns the hook's two MsgCalls in the /op-hook wire form (msg: amino JSON, which is
// also valid proto3 JSON, so InterwovenKit's amino decoder and initia.js' fromJson both
// read it).
func (h WrapHook) Msgs() ([]CosmosMsg, error) {
	recv, err := Address20(h.Receiver)
	if err != nil {
		return nil, fmt.Errorf("receiver: %w", err)
	}
	for _, a := range []string{h.Wrapper, h.BridgedToken} {
		if !common.IsHexAddress(a) {
			return nil, fmt.Errorf("%q is not a contract address", a)
		}
	}
	approve, err := wrapABI.Pack("approve", common.HexToAddress(h.Wrapper), maxUint256)
	if err != nil {
		return nil, err
	}
	toLocal, err := wrapABI.Pack("toLocal", recv, h.BridgedDenom, uint8(WrapperRemoteDecimals))
	if err != nil {
		return nil, err
	}
	var out []CosmosMsg
	for _, c := range []struct {
		to    string
		input []byte
	}{{h.BridgedToken, approve}, {h.Wrapper, toLocal}} {
		m, err := aminoMsg(TypeMsgCall, &evmv1.MsgCall{Sender: h.Sender, ContractAddr: common.HexToAddress(c.to).Hex(),
			Input: "0x" + hex.EncodeToString(c.input), Value: "0"})
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Address20 reads a 20-byte account address given as bech32 (any prefix) or 0x hex.
func Address20(s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		if !common.IsHexAddress(s) {
			return common.Address{}, fmt.Errorf("%q is not a 20-byte hex address", s)
		}
		return common.HexToAddress(s), nil
	}
	_, b, err := bech32.DecodeToBase256(s)
	if err != nil {
		return common.Address{}, fmt.Errorf("%q is not bech32: %w", s, err)
	}
	if len(b) != 20 {
		return common.Address{}, fmt.Errorf("%q holds %d bytes; the wrapper pays 20-byte EVM addresses", s, len(b))
	}
	return common.BytesToAddress(b), nil
}

// wrapHook checks the signed op hook of a deposit that ends in the wrapper token w, and
// returns its bytes (MsgInitiateTokenDeposit.data) and its signer as a rollup address (the
// deposit's recipient). Clients send the hook as base64 of an encoded cosmos.tx.v1beta1.Tx
// (InterwovenKit) or of TxRaw bytes (initia.js); both are the same bytes on the wire
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/bridge/data/tx.ts:389-395,
// initia-labs/initia.js@a60dc6b:src/bridge/bridge.ts:311-314). A hook that cannot run (not a
// signed tx, signed by another key than its signer) is refused here, before the user's
// funds move.
func (b Builder) wrapHook(h *SignedOPHook, w route.WrapStep) ([]byte, string, error) {
	if h == nil || h.Hook == "" {
		return nil, "", route.Invalidf(ReasonOPHookRequired, "the deposit is converted to %s on %s by the op hook: signed_op_hook is required", w.LocalDenom, w.ChainID).
			WithInfo("call /op-hook, sign the returned messages on " + w.ChainID + " and send them as signed_op_hook")
	}
	raw, err := base64.StdEncoding.DecodeString(h.Hook)
	if err != nil {
		return nil, "", route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.hook must be base64: %v", err)
	}
	d, err := txcodec.Decode(raw)
	if err != nil || len(d.Msgs) == 0 || len(d.Signers) != 1 || len(d.Raw.Signatures) != 1 || d.Signers[0].PubKey == nil {
		return nil, "", route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.hook is not a transaction signed by one key")
	}
	l2 := b.Reg.Chain(w.ChainID)
	if l2 == nil {
		return nil, "", opsErr("unknown chain %s", w.ChainID)
	}
	_, signerBytes, err := bech32.DecodeToBase256(h.Signer)
	if err != nil {
		return nil, "", route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.signer %q is not a bech32 address", h.Signer)
	}
	if string(signerBytes) != string(d.Signers[0].PubKey.Address()) {
		return nil, "", route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.hook is not signed by signed_op_hook.signer %s", h.Signer)
	}
	signer, err := bech32.EncodeFromBase256(l2.Bech32Prefix, signerBytes)
	if err != nil {
		return nil, "", route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.signer: %v", err)
	}
	return raw, signer, nil
}

// unwrapWithdrawMsgs is the source tx of an OPinit withdrawal that starts from the wrapper
// token w: approve(wrapper, amount) on the wrapper token, then
// toRemoteAndOPWithdraw(receiver, localDenom, amount) (selector 0xb9cf3742), which unwraps and
// has the wrapper send MsgInitiateTokenWithdrawal. Exactly two MsgCalls, as initia.js expects
// of a tx leaving minievm from an 18-decimal token ("approve + toRemote (2 MsgCalls)",
// initia-labs/initia.js@a60dc6b:src/bridge/bridge.ts:286-291), so a same-chain op hook
// signed at sequence + 2 stays valid.
func unwrapWithdrawMsgs(sender, receiver string, w route.WrapStep, local *uint256.Int) ([]CosmosMsg, error) {
	withdraw, err := wrapABI.Pack("toRemoteAndOPWithdraw", receiver, w.LocalDenom, local.ToBig())
	if err != nil {
		return nil, err
	}
	return unwrapMsgs(sender, w, local, withdraw)
}

// unwrapIBCMsgs is the source tx of an ICS-20 transfer (with its packet-forward memo) that
// starts from the wrapper token: approve, then toRemoteAndIBCTransfer(localDenom, amount,
// channel, receiver, timeout, memo) (selector 0xf787cbdd, the overload with memo), whose wrapper sends t's
// transfer of the remote coin and gives the tokens back if it fails.
func unwrapIBCMsgs(sender string, t *transferv1.MsgTransfer, w route.WrapStep, local *uint256.Int) ([]CosmosMsg, error) {
	memo := t.Memo
	if memo == "" {
		memo = "{}"
	}
	send, err := wrapABI.Pack("toRemoteAndIBCTransfer", w.LocalDenom, local.ToBig(), t.SourceChannel, t.Receiver,
		new(big.Int).SetUint64(t.TimeoutTimestamp), memo)
	if err != nil {
		return nil, err
	}
	return unwrapMsgs(sender, w, local, send)
}

func unwrapMsgs(sender string, w route.WrapStep, local *uint256.Int, call []byte) ([]CosmosMsg, error) {
	token := strings.TrimPrefix(w.LocalDenom, "evm/")
	if !common.IsHexAddress(token) || !common.IsHexAddress(w.Contract) {
		return nil, opsErr("%s is not a wrapper token of %s", w.LocalDenom, w.Contract)
	}
	approve, err := wrapABI.Pack("approve", common.HexToAddress(w.Contract), local.ToBig())
	if err != nil {
		return nil, err
	}
	withdraw := call
	var out []CosmosMsg
	for _, c := range []struct {
		to    string
		input []byte
	}{{token, approve}, {w.Contract, withdraw}} {
		m, err := aminoMsg(TypeMsgCall, &evmv1.MsgCall{Sender: sender, ContractAddr: common.HexToAddress(c.to).Hex(),
			Input: "0x" + hex.EncodeToString(c.input), Value: "0"})
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// wrapMemo is the ibc-hooks memo of an ICS-20 arrival that ends in the wrapper token w, and
// the packet receiver it needs. minievm's ibc-hooks middleware requires the receiver to equal
// the memo's contract_addr, receives the coin on an intermediate account derived from the
// channel and sender, approves the contract for the packet amount from that account, then
// runs the memo's MsgCall from it (initia-labs/minievm@3470dff:app/ibc-hooks/receive.go:33-53,
// 163-195, util.go:79-82). The call is the no-amount toLocal(receiver, denom, 6), which
// converts min(allowance, balance): exactly the packet amount, as minievm's own test wraps
// an IBC arrival (initia-labs/minievm@3470dff:integration-tests/wrapper_test.go:324-349).
// recipient is the final recipient (bech32 or 0x, 20 bytes).
func wrapMemo(w route.WrapStep, recipient string) (string, map[string]any, error) {
	recv, err := Address20(recipient)
	if err != nil {
		return "", nil, route.Invalidf(ReasonInvalidAddress, "the recipient of %s on %s: %v", w.LocalDenom, w.ChainID, err)
	}
	if !common.IsHexAddress(w.Contract) {
		return "", nil, fmt.Errorf("msgs: wrapper of %s on %s is %q, not a contract address", w.LocalDenom, w.ChainID, w.Contract)
	}
	input, err := wrapABI.Pack("toLocal", recv, w.RemoteDenom, uint8(WrapperRemoteDecimals))
	if err != nil {
		return "", nil, err
	}
	contract := common.HexToAddress(w.Contract).Hex()
	return contract, map[string]any{"evm": map[string]any{"message": orderedCall{
		ContractAddr: contract, Input: "0x" + hex.EncodeToString(input), Value: "0", AccessList: []string{}}}}, nil
}

// orderedCall keeps the field order of minievm's hook message (contract_addr, input, value,
// access_list).
type orderedCall struct {
	ContractAddr string   `json:"contract_addr"`
	Input        string   `json:"input"`
	Value        string   `json:"value"`
	AccessList   []string `json:"access_list"`
}

// compose applies the rules above to the transaction of operations [start,end). It returns
// the whole transaction's messages when the transaction starts from a wrapper token (rule 1);
// otherwise it sets on leg what the first bridge's message carries for the others (rules 2-4)
// and returns none.
func (b Builder) compose(req Request, p *plan, start, end int, leg *bridge.Leg) ([]CosmosMsg, error) {
	for i := start; i < end; i++ {
		if w, ok := p.fromLocal[i]; ok {
			if i != start {
				return nil, opsErr("operation %d converts %s in the middle of a transaction", i, w.LocalDenom)
			}
			local := new(uint256.Int).Mul(p.amounts[i], pow10(w.LocalDecimals-w.RemoteDecimals))
			switch {
			case bridge.WithdrawalHop(b.Reg, p.ops[i], p.hops[i]) && end-start == 1:
				return unwrapWithdrawMsgs(leg.Sender, leg.Receivers[0], w, local)
			case p.hops[i].Bridge == bridge.IBC:
				b.arrive(p, end, leg)
				t, err := bridge.Transfers(*leg)
				if err != nil {
					return nil, refusal(err)
				}
				return unwrapIBCMsgs(leg.Sender, t, w, local)
			default:
				return nil, route.Invalidf(ReasonUnsupportedOp, "operation %d cannot start from the wrapper token %s", i, w.LocalDenom)
			}
		}
		if w, ok := p.toLocal[i]; ok && w.Via != route.WrapInOPHook && (w.Via != route.WrapInIBCHook || i != end-1 || p.hops[i].Bridge != bridge.IBC) {
			return nil, route.Invalidf(ReasonUnsupportedOp, "operation %d converts %s to %s on %s before the transaction ends: only the last IBC arrival of a transaction can convert (in its ibc-hooks memo)",
				i, w.RemoteDenom, w.LocalDenom, w.ChainID)
		}
	}
	b.arrive(p, end, leg)
	if p.hops[start].Bridge == bridge.LayerZero && end-start > 1 {
		return nil, b.composeDeposit(p, start, end, leg)
	}
	if p.hops[start].Bridge == bridge.OPInit && !bridge.WithdrawalHop(b.Reg, p.ops[start], p.hops[start]) {
		if w, ok := p.toLocal[start]; ok {
			// Rule 2: the deposit is minted to the hook's signer, whose approve and toLocal
			// convert it for the recipient (toLocal's receiver, in the hook).
			hook, signer, err := b.wrapHook(req.SignedOPHook, w)
			if err != nil {
				return nil, err
			}
			leg.Receivers[0], leg.Hook = signer, hook
		} else if end-start > 1 {
			// Rule 4.
			hook, err := checkHook(req.SignedOPHook, leg.Receivers[0])
			if err != nil {
				return nil, err
			}
			leg.Hook = hook
		}
	}
	return nil, nil
}

// arrive is rule 3 on leg: when the transaction's last arrival ends in the wrapper token, it
// pays the wrapper contract through an ibc-hooks memo (wrapMemo).
func (b Builder) arrive(p *plan, end int, leg *bridge.Leg) {
	if w, ok := p.toLocal[end-1]; ok && w.Via == route.WrapInIBCHook {
		leg.Arrive = func(recipient string) (string, map[string]any, error) { return wrapMemo(w, recipient) }
	}
}

// unwrapOp is op as the bridge hop itself sees it: the coins the ERC20Wrapper converts
// from or to (RemoteDenom) instead of the wrapper tokens the route shows. wrapped says
// whether op had a conversion.
func unwrapOp(op route.Operation, toLocal, fromLocal route.WrapStep) (route.Operation, bool) {
	if toLocal.RemoteDenom == "" && fromLocal.RemoteDenom == "" {
		return op, false
	}
	return op.WithDenoms(fromLocal.RemoteDenom, toLocal.RemoteDenom), true
}

// checkHook decodes the signed hook and checks it is a signed transaction from the deposit's
// recipient, so a wrong hook fails here instead of on the rollup after the funds moved.
func checkHook(h *SignedOPHook, to string) ([]byte, error) {
	if h == nil || h.Hook == "" {
		return nil, route.Invalidf(ReasonOPHookRequired, "the route continues after the OPinit deposit: signed_op_hook is required").
			WithInfo("call /op-hook, sign the returned messages and send them as signed_op_hook")
	}
	raw, err := base64.StdEncoding.DecodeString(h.Hook)
	if err != nil {
		return nil, route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.hook must be base64: %v", err)
	}
	var tx txv1beta1.Tx
	if err := proto.Unmarshal(raw, &tx); err != nil || tx.Body == nil || len(tx.Body.Messages) == 0 || len(tx.Signatures) == 0 {
		return nil, route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.hook is not a signed transaction")
	}
	if h.Signer != "" && h.Signer != to {
		_, a, err1 := bech32.DecodeToBase256(h.Signer)
		_, b, err2 := bech32.DecodeToBase256(to)
		if err1 != nil || err2 != nil || string(a) != string(b) {
			return nil, route.Invalidf(ReasonInvalidOPHook, "signed_op_hook.signer %s is not the deposit recipient %s", h.Signer, to)
		}
	}
	return raw, nil
}

// composeDeposit is rule 5 on leg, the LayerZero hop start followed in its transaction by
// the OPinit deposit start+1 and nothing else.
func (b Builder) composeDeposit(p *plan, start, end int, leg *bridge.Leg) error {
	dep := start + 1
	if end-start != 2 || p.hops[dep].Bridge != bridge.OPInit || bridge.WithdrawalHop(b.Reg, p.ops[dep], p.hops[dep]) {
		return route.Invalidf(ReasonUnsupportedOp, "operation %d: only an OPinit deposit can follow a LayerZero hop in its transaction (composed on arrival)", dep)
	}
	if _, ok := p.toLocal[dep]; ok {
		return route.Invalidf(ReasonUnsupportedOp, "operation %d: a deposit composed on a LayerZero arrival carries no op hook to convert the coin", dep)
	}
	l1, l2 := b.Reg.Chain(p.hops[dep].FromChainID), b.Reg.Chain(p.hops[dep].ToChainID)
	if l1.LZOPinitComposer == "" {
		return route.Invalidf(ReasonUnsupportedOp, "operation %d: %s has no LayerZero composer to make the deposit on arrival; send it in a tx of its own", dep, l1.ID)
	}
	to, err := bridge.Recipient32(l2, leg.Receivers[1])
	if err != nil {
		return addrErr(p.toPos[dep], l2.ID, err)
	}
	leg.Compose = &bridge.Compose{Composer: l1.LZOPinitComposer, Msg: bridge.OPinitComposeMsg(l2.BridgeID, to, nil), Gas: bridge.ComposeGas}
	return nil
}
