package bridge

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/rollgate/rollgate/internal/chain/address"
	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	wasmv1 "github.com/rollgate/rollgate/internal/chain/protos/cosmwasm/wasm/v1"
	movev1 "github.com/rollgate/rollgate/internal/chain/protos/initia/move/v1"
	evmv1 "github.com/rollgate/rollgate/internal/chain/protos/minievm/evm/v1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/internal/branch"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
)

// Sign modes a hook may use besides SIGN_MODE_DIRECT: LEGACY_AMINO_JSON, and EIP_191, which
// InterwovenKit always uses and initia.js uses by default on minievm
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/data/signer.ts:185-213,
// initia-labs/initia.js@a60dc6b:src/bridge/bridge.ts:237-266).
const (
	signModeAminoJSON = 127
	signModeEIP191    = 191
)

// HookRunner executes hooks on one engine chain through the chain's own message handlers:
// OPinit deposit hooks (a signed L2 tx in the deposit's data: decoded, signatures and
// sequences verified against the chain's accounts, sequences incremented, messages run)
// and ibc-hooks messages (the memo's message turned into the VM's Msg with the
// intermediary as sender). It implements opinit.DepositHookExecutor and ibc.HookExecutor.
type HookRunner struct {
	chainID string
	routes  map[string]sim.Handler
}

// NewHookRunner collects the message routes of the chain's modules (the VM modules and
// the bridge modules; bank MsgSend is handled by the runner itself).
func NewHookRunner(chainID string, modules ...sim.Module) *HookRunner {
	h := &HookRunner{chainID: chainID, routes: map[string]sim.Handler{}}
	for _, m := range modules {
		for url, fn := range m.Handlers() {
			h.routes[url] = fn
		}
	}
	return h
}

// AddModules adds routes (modules created after the runner, e.g. the bridge modules
// that hold the runner themselves).
func (h *HookRunner) AddModules(modules ...sim.Module) {
	for _, m := range modules {
		for url, fn := range m.Handlers() {
			h.routes[url] = fn
		}
	}
}

// Run executes one message through the chain's routes (a contract's execute_cosmos on
// minievm, a hook's message).
func (h *HookRunner) Run(env sim.Env, m proto.Message) error { return h.run(env, m) }

func (h *HookRunner) run(env sim.Env, m proto.Message) error {
	url := engine.TypeURL(m)
	if fn, ok := h.routes[url]; ok {
		return fn(env, m)
	}
	if url == "/cosmos.bank.v1beta1.MsgSend" {
		return h.send(env, m)
	}
	return fmt.Errorf("unknown message type %s", url)
}

func (h *HookRunner) send(env sim.Env, m proto.Message) error {
	ms, ok := m.(*bankv1beta1.MsgSend)
	if !ok {
		return fmt.Errorf("unknown message type %T", m)
	}
	from, err := engine.ParseAddress(env.AddressPrefix(), ms.GetFromAddress())
	if err != nil {
		return err
	}
	to, err := engine.ParseAddress(env.AddressPrefix(), ms.GetToAddress())
	if err != nil {
		return err
	}
	var coins []sim.Coin
	for _, c := range ms.GetAmount() {
		a, ok := new(big.Int).SetString(c.GetAmount(), 10)
		if !ok {
			return fmt.Errorf("invalid amount")
		}
		coins = append(coins, sim.Coin{Denom: c.GetDenom(), Amount: a})
	}
	return env.Send(from, to, coins)
}

// envQuery reads the chain's accounts through an Env, so engine.AccountAt works inside a tx.
type envQuery struct{ env sim.Env }

func (q envQuery) ChainID() string                            { return q.env.ChainID() }
func (q envQuery) Height() int64                              { return q.env.Height() }
func (q envQuery) AddressPrefix() string                      { return q.env.AddressPrefix() }
func (q envQuery) Store(module string) sim.KVReader           { return q.env.Store(module) }
func (q envQuery) Balance(addr []byte, denom string) *big.Int { return q.env.Balance(addr, denom) }

// ExecuteDepositHook implements opinit.DepositHookExecutor. data is decoded with the chain's
// tx decoder, so both forms clients send are accepted: InterwovenKit's encoded
// cosmos.tx.v1beta1.Tx and initia.js's TxRaw, which are the same bytes on the wire
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/bridge/data/tx.ts:389-395,
// initia-labs/initia.js@a60dc6b:src/bridge/bridge.ts:311-314). It runs OPinit's reduced ante
// chain as minievm wires it (CreateAnteHandlerForOPinit: signature count, SIGN_MODE_DIRECT,
// LEGACY_AMINO_JSON or EIP_191 verification, sequence check and increment, no fee), then the
// messages in order, all or nothing (env is a branch the caller discards on error). The
// increment sets a fresh minievm sequence flag, so a hook of N MsgCalls consumes N sequences
// of its signer, as on minievm. Gas is not capped.
func (h *HookRunner) ExecuteDepositHook(env *branch.Env, data []byte, _ uint64) error {
	tx, err := engine.DecodeTx(data)
	if err != nil {
		return &opinit.HookError{Stage: opinit.HookStageDecode, Err: err}
	}
	msgs, err := h.hookAnte(env, tx)
	if err != nil {
		return &opinit.HookError{Stage: opinit.HookStageAnte, Err: err}
	}
	// The messages run in a branch of their own: on failure the ante's sequence increments
	// stay and the messages' writes go.
	run, err := branch.New(env)
	if err != nil {
		return &opinit.HookError{Stage: opinit.HookStageMsg, Err: err}
	}
	for _, m := range msgs {
		if err := h.run(run, m); err != nil {
			return &opinit.HookError{Stage: opinit.HookStageMsg, Err: err}
		}
	}
	return run.Commit()
}

// hookAnte is the hook's ante chain; it returns the decoded messages.
func (h *HookRunner) hookAnte(env *branch.Env, tx *engine.Tx) ([]proto.Message, error) {
	if len(tx.Signers) == 0 || len(tx.Signers) != len(tx.Signatures) {
		return nil, fmt.Errorf("invalid number of signatures; expected: %d, got %d", len(tx.Signers), len(tx.Signatures))
	}
	if tx.TimeoutHeight != 0 && int64(tx.TimeoutHeight) < env.Height() {
		return nil, fmt.Errorf("tx timeout height %d passed", tx.TimeoutHeight)
	}
	msgs := make([]proto.Message, 0, len(tx.Msgs))
	for _, a := range tx.Msgs {
		m, err := engine.DecodeAny(a.TypeUrl, a.Value)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	var signers [][]byte
	for i, si := range tx.Signers {
		addr, err := engine.AddressOf(si.PubKeyType, si.PubKey)
		if err != nil {
			return nil, fmt.Errorf("invalid pubkey: %w", err)
		}
		acc, ok := engine.AccountAt(envQuery{env}, addr)
		if !ok {
			return nil, fmt.Errorf("account %s not found", engine.Bech32(env.AddressPrefix(), addr))
		}
		if si.Sequence != acc.Sequence {
			return nil, fmt.Errorf("account sequence mismatch, expected %d, got %d: incorrect account sequence", acc.Sequence, si.Sequence)
		}
		var signBytes []byte
		switch si.Mode {
		case engine.SignModeDirect:
			if signBytes, err = txcodec.DirectSignBytes(tx.BodyBytes, tx.AuthInfoBytes, env.ChainID(), acc.Number); err != nil {
				return nil, err
			}
		case signModeAminoJSON, signModeEIP191:
			body, fee, err := bodyAndFee(tx)
			if err != nil {
				return nil, err
			}
			if signBytes, err = txcodec.AminoSignBytes(env.ChainID(), acc.Number, si.Sequence, body, fee); err != nil {
				return nil, err
			}
			if si.Mode == signModeEIP191 {
				signBytes = txcodec.EIP191SignBytes(signBytes)
			}
		default:
			return nil, fmt.Errorf("unsupported sign mode %d", si.Mode)
		}
		if !engine.VerifyDirect(si.PubKeyType, si.PubKey, signBytes, tx.Signatures[i]) {
			return nil, fmt.Errorf("signature verification failed; please verify account number (%d) and chain-id (%s): unauthorized", acc.Number, env.ChainID())
		}
		if err := bumpSequence(env, addr, si); err != nil {
			return nil, err
		}
		signers = append(signers, addr)
	}
	incremented := true
	env.SetSequenceIncremented(&incremented)
	for _, m := range msgs {
		want, err := txcodec.MsgSigners(m)
		if err != nil {
			return nil, err
		}
		for _, w := range want {
			b, err := engine.ParseAddress(env.AddressPrefix(), w)
			if err != nil {
				return nil, fmt.Errorf("invalid signer %s: %w", w, err)
			}
			if !slices.ContainsFunc(signers, func(s []byte) bool { return string(s) == string(b) }) {
				return nil, fmt.Errorf("pubKey does not match signer address %s: invalid pubkey", w)
			}
		}
	}
	return msgs, nil
}

func bodyAndFee(tx *engine.Tx) (*txv1beta1.TxBody, *txv1beta1.Fee, error) {
	var body txv1beta1.TxBody
	if err := proto.Unmarshal(tx.BodyBytes, &body); err != nil {
		return nil, nil, fmt.Errorf("tx body: %w", err)
	}
	var auth txv1beta1.AuthInfo
	if err := proto.Unmarshal(tx.AuthInfoBytes, &auth); err != nil {
		return nil, nil, fmt.Errorf("auth info: %w", err)
	}
	fee := auth.GetFee()
	if fee == nil {
		fee = &txv1beta1.Fee{}
	}
	return &body, fee, nil
}

// bumpSequence increments the signer's sequence (and records its public key) in the
// engine's account record, keeping every other field of it.
func bumpSequence(env sim.Env, addr []byte, si engine.SignerInfo) error {
	kv := env.Store("auth")
	key := "a/" + hex.EncodeToString(addr)
	raw, ok := kv.Get(key)
	if !ok {
		return fmt.Errorf("account %x vanished", addr)
	}
	var rec map[string]any
	if err := json.Unmarshal(raw, &rec); err != nil {
		return fmt.Errorf("account record: %w", err)
	}
	rec["sequence"] = si.Sequence + 1
	if _, has := rec["pub_key"]; !has {
		rec["pub_key_type"] = si.PubKeyType
		rec["pub_key"] = si.PubKey
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	kv.Set(key, b)
	return nil
}

// ExecIBCHook implements ibc.HookExecutor: the memo's message becomes the VM's Msg with
// the intermediary as sender (MsgExecute / MsgExecuteJSON for Move, MsgCall for EVM,
// MsgExecuteContract with the received funds for Wasm) and runs through the chain's
// routes.
func (h *HookRunner) ExecIBCHook(env sim.Env, vm vmkind.Kind, sender []byte, message json.RawMessage, funds sim.Coin) error {
	senderStr, err := address.Bech32(env.AddressPrefix(), sender)
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(message, &fields); err != nil {
		return fmt.Errorf("invalid hook message: %w", err)
	}
	var msg proto.Message
	switch vm {
	case vmkind.Move:
		if _, isJSON := fields["message_json"]; isJSON {
			msg = &movev1.MsgExecuteJSON{}
			message = fields["message_json"]
		} else {
			msg = &movev1.MsgExecute{}
		}
	case vmkind.EVM:
		msg = &evmv1.MsgCall{}
	case vmkind.Wasm:
		var w struct {
			Contract string          `json:"contract"`
			Msg      json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(message, &w); err != nil {
			return fmt.Errorf("invalid wasm hook message: %w", err)
		}
		return h.run(env, &wasmv1.MsgExecuteContract{Sender: senderStr, Contract: w.Contract, Msg: w.Msg,
			Funds: []*basev1beta1.Coin{{Denom: funds.Denom, Amount: funds.Amount.String()}}})
	default:
		return fmt.Errorf("no hook for vm %q", vm)
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(message, msg); err != nil {
		return fmt.Errorf("invalid %s hook message: %w", vm, err)
	}
	r := msg.ProtoReflect()
	r.Set(r.Descriptor().Fields().ByName("sender"), protoreflectString(senderStr))
	if call, ok := msg.(*evmv1.MsgCall); ok {
		if len(sender) != common.AddressLength {
			// minievm's intermediary is 32 bytes; the EVM acts for it as its shorthand
			// account, the address's last 20 bytes, which is also where minievm's ERC-20 bank
			// keeps its coins (initia-labs/minievm@3470dff:x/evm/keeper/address.go:17-59). The
			// devnet's bank keys by the raw address, so the received coin moves there first.
			short := common.BytesToAddress(sender).Bytes()
			if funds.Amount != nil && funds.Amount.Sign() > 0 {
				if err := env.Send(sender, short, []sim.Coin{funds}); err != nil {
					return err
				}
			}
			if senderStr, err = address.Bech32(env.AddressPrefix(), short); err != nil {
				return err
			}
			call.Sender = senderStr
		}
		if err := h.approveHook(env, senderStr, call.ContractAddr, funds); err != nil {
			return err
		}
	}
	return h.run(env, msg)
}

// approveHook is minievm's step before an ICS-20 hook's MsgCall: the intermediary approves
// the hook contract for the packet amount on the received coin's ERC-20, so a contract such as
// the ERC20Wrapper can pull the coin (its no-amount toLocal converts min(allowance, balance))
// (initia-labs/minievm@3470dff:app/ibc-hooks/receive.go:33-53,57-82). A failure fails the hook,
// and the packet is acknowledged with an error as any hook failure is.
func (h *HookRunner) approveHook(env sim.Env, sender, contract string, funds sim.Coin) error {
	if funds.Amount == nil || funds.Amount.Sign() < 0 || funds.Amount.BitLen() > 256 {
		return fmt.Errorf("failed to parse amount %v", funds.Amount)
	}
	input := append(crypto.Keccak256([]byte("approve(address,uint256)"))[:4], common.LeftPadBytes(common.HexToAddress(contract).Bytes(), 32)...)
	input = append(input, common.LeftPadBytes(funds.Amount.Bytes(), 32)...)
	token := evm.ERC20Of(envQuery{env}, funds.Denom)
	return h.run(env, &evmv1.MsgCall{Sender: sender, ContractAddr: token.Hex(), Input: "0x" + hex.EncodeToString(input), Value: "0"})
}

func protoreflectString(s string) protoreflect.Value { return protoreflect.ValueOfString(s) }

// ExecIBCCallback implements ibc.CallbackExecutor: Move calls
// <module_address>::<module_name>::ibc_ack(id: u64, success: bool) / ibc_timeout(id: u64)
// with BCS arguments, EVM calls ibc_ack(uint64,bool) / ibc_timeout(uint64) on the
// callback contract; Wasm sudo callbacks are not modelled (no-op).
func (h *HookRunner) ExecIBCCallback(env sim.Env, vm vmkind.Kind, sender []byte, callback json.RawMessage, cb ibc.Callback) error {
	senderStr, err := address.Bech32(env.AddressPrefix(), sender)
	if err != nil {
		return err
	}
	var c struct {
		ID              json.Number `json:"id"`
		ModuleAddress   string      `json:"module_address"`
		ModuleName      string      `json:"module_name"`
		ContractAddress string      `json:"contract_address"`
	}
	dec := json.NewDecoder(bytes.NewReader(callback))
	dec.UseNumber()
	if vm == vmkind.Wasm {
		return nil
	}
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("failed to decode async callback: %w", err)
	}
	id, err := strconv.ParseUint(strings.Trim(c.ID.String(), `"`), 10, 64)
	if err != nil {
		return fmt.Errorf("invalid callback id %q: %w", c.ID, err)
	}
	switch vm {
	case vmkind.Move:
		idArg := binary.LittleEndian.AppendUint64(nil, id)
		msg := &movev1.MsgExecute{Sender: senderStr, ModuleAddress: c.ModuleAddress, ModuleName: c.ModuleName,
			FunctionName: "ibc_timeout", Args: [][]byte{idArg}}
		if !cb.Timeout {
			ok := []byte{0}
			if cb.Success {
				ok[0] = 1
			}
			msg.FunctionName, msg.Args = "ibc_ack", [][]byte{idArg, ok}
		}
		return h.run(env, msg)
	case vmkind.EVM:
		word := func(v uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 24), v) }
		var input []byte
		if cb.Timeout {
			input = append(crypto.Keccak256([]byte("ibc_timeout(uint64)"))[:4], word(id)...)
		} else {
			ok := uint64(0)
			if cb.Success {
				ok = 1
			}
			input = append(crypto.Keccak256([]byte("ibc_ack(uint64,bool)"))[:4], word(id)...)
			input = append(input, word(ok)...)
		}
		return h.run(env, &evmv1.MsgCall{Sender: senderStr, ContractAddr: c.ContractAddress, Input: "0x" + hex.EncodeToString(input), Value: "0"})
	}
	return fmt.Errorf("no callback for vm %q", vm)
}
