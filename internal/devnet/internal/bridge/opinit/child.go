package opinit

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	opchildv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/opchild/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/bridge/internal/branch"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// ChildStore is the KV namespace of opchild.
const ChildStore = "opchild"

// Type URLs handled by the child module.
const (
	URLFinalizeTokenDeposit    = "/opinit.opchild.v1.MsgFinalizeTokenDeposit"
	URLInitiateTokenWithdrawal = "/opinit.opchild.v1.MsgInitiateTokenWithdrawal"
)

// DefaultHookMaxGas is opchild's default hook_max_gas param.
const DefaultHookMaxGas = 1_000_000

// maxReasonLength truncates finalize_token_deposit.reason as opchild does.
const maxReasonLength = 128

// DepositHookExecutor runs the hook of a deposit: data is an encoded, signed L2
// cosmos.tx.v1beta1.Tx. The engine decodes it, verifies its signatures and sequences
// (and increments them), and executes its messages through its router on env with gas
// capped at maxGas, emitting the messages' events without baseapp `message` events.
// env is a branch: it is discarded when the call returns an error, except a *HookError of
// stage HookStageMsg (the ante chain passed, so its sequence increments stay, as opchild's
// handleBridgeHook runs only the messages in a cache context).
type DepositHookExecutor interface {
	ExecuteDepositHook(env *branch.Env, data []byte, maxGas uint64) error
}

// Stages of a failed hook, each with opchild's reason text
// (initia-labs/OPinit@f0b6618:x/opchild/keeper/deposit.go handleBridgeHook).
const (
	HookStageDecode = "Failed to decode tx"
	HookStageAnte   = "Failed to run AnteHandler"
	HookStageMsg    = "Failed to execute Msg"
)

// HookError is a hook failure at one stage.
type HookError struct {
	Stage string
	Err   error
}

func (e *HookError) Error() string { return e.Stage + ": " + e.Err.Error() }
func (e *HookError) Unwrap() error { return e.Err }

// ChildConfig configures the L2 module.
type ChildConfig struct {
	Bridge     Bridge
	L1ChainID  string
	L1ClientID string
	// L1Prefix renders the bridge address on L1 ("init" when empty).
	L1Prefix string
	// Executors are the L2 bech32 addresses allowed to finalize deposits.
	Executors  []string
	HookMaxGas uint64
	Hooks      DepositHookExecutor // nil: a deposit with data reports "hook failed"
	Traffic    *Traffic            // seeded withdrawals (nil: none)
	// KeepWithdrawals is how long a withdrawal stays claimable after its finalization
	// period on a chain that prunes (0: for good). The real opchild keeps no withdrawals in
	// its state (the executor keeps them in its database); the devnet's stand-in for the
	// executor keeps them in the chain's, so a devnet left running forgets the old ones.
	KeepWithdrawals time.Duration
}

// Child is the L2 opchild module (bridge part).
type Child struct {
	cfg ChildConfig
}

var _ sim.Module = (*Child)(nil)

// NewChild returns the L2 module.
func NewChild(cfg ChildConfig) *Child {
	if cfg.HookMaxGas == 0 {
		cfg.HookMaxGas = DefaultHookMaxGas
	}
	if cfg.L1Prefix == "" {
		cfg.L1Prefix = "init"
	}
	return &Child{cfg: cfg}
}

// Name implements sim.Module.
func (c *Child) Name() string { return "opchild" }

// Needs implements sim.Needer: withdrawals answer with their sequence, and deposits and their
// hooks run in a branch of the Env.
func (c *Child) Needs() []sim.Extra { return sim.HostExtras }

const (
	keyNextL1 = "nextL1Seq"
	keyNextL2 = "nextL2Seq"
)

func denomPairKey(l2 string) string   { return "denomPair/" + l2 }
func withdrawalKey(seq uint64) string { return fmt.Sprintf("withdrawal/%020d", seq) }
func withdrawalPrefix() string        { return "withdrawal/" }

// InitGenesis implements sim.Module.
func (c *Child) InitGenesis(env sim.Env) error {
	kv := env.Store(ChildStore)
	setUint(kv, keyNextL1, 1)
	setUint(kv, keyNextL2, 1)
	return nil
}

// Handlers implements sim.Module.
func (c *Child) Handlers() map[string]sim.Handler {
	return map[string]sim.Handler{
		URLFinalizeTokenDeposit:    sim.Typed(c.finalizeDeposit),
		URLInitiateTokenWithdrawal: sim.Typed(c.initiateWithdrawal),
	}
}

// truncate clips a reason as opchild does: the first 128 bytes and "...".
func truncate(s string) string {
	if len(s) > maxReasonLength {
		return s[:maxReasonLength] + "..."
	}
	return s
}

func (c *Child) finalizeDeposit(env sim.Env, m *opchildv1.MsgFinalizeTokenDeposit) error {
	if !slices.Contains(c.cfg.Executors, m.Sender) {
		return coded("opchild", 4, fmt.Sprintf("expected one of %v, got %s: unauthorized", c.cfg.Executors, m.Sender))
	}
	if m.Amount == nil {
		return coded("sdk", 10, "invalid amount: invalid coins")
	}
	amt, ok := parseAmount(m.Amount.Amount)
	if !ok {
		return coded("sdk", 10, fmt.Sprintf("%s%s: invalid coins", m.Amount.Amount, m.Amount.Denom))
	}
	to, err := address.ParseAccount(env.AddressPrefix(), m.To)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("invalid to address: %v: invalid address", err))
	}
	if want := L2Denom(c.cfg.Bridge.ID, m.BaseDenom); m.Amount.Denom != want {
		return coded("opchild", 7, fmt.Sprintf("expected %s, got %s: invalid denom", want, m.Amount.Denom))
	}
	kv := env.Store(ChildStore)
	next := getUint(kv, keyNextL1)
	switch {
	case m.Sequence < next:
		return nil // already finalized: NOOP without events
	case m.Sequence > next:
		return coded("opchild", 9, fmt.Sprintf("expected %d, got %d: invalid sequence", next, m.Sequence))
	}
	setUint(kv, keyNextL1, next+1)

	coins := []sim.Coin{{Denom: m.Amount.Denom, Amount: amt}}
	success, reason := true, ""
	dep, err := branch.New(env)
	if err != nil {
		return err
	}
	if err := c.deposit(dep, to, coins); err != nil {
		success, reason = false, "deposit failed; "+truncate(err.Error())
	} else {
		if err := dep.Commit(); err != nil {
			return err
		}
		if _, ok := kv.Get(denomPairKey(m.Amount.Denom)); !ok {
			kv.Set(denomPairKey(m.Amount.Denom), []byte(m.BaseDenom))
		}
		if len(m.Data) > 0 {
			hook, err := branch.New(env)
			if err != nil {
				return err
			}
			var herr error
			if c.cfg.Hooks == nil {
				herr = fmt.Errorf("hook execution is not available on this chain")
			} else {
				herr = c.cfg.Hooks.ExecuteDepositHook(hook, m.Data, c.cfg.HookMaxGas)
			}
			var he *HookError
			if herr == nil || errors.As(herr, &he) && he.Stage == HookStageMsg {
				if err := hook.Commit(); err != nil {
					return err
				}
			}
			if herr != nil {
				success, reason = false, "hook failed; "+truncate(herr.Error())
			}
		}
	}
	ev := event("finalize_token_deposit",
		"l1_sequence", strconv.FormatUint(m.Sequence, 10),
		"sender", m.From,
		"recipient", m.To,
		"denom", m.Amount.Denom,
		"base_denom", m.BaseDenom,
		"amount", amt.String(),
		"finalize_height", strconv.FormatUint(m.Height, 10),
		"success", strconv.FormatBool(success))
	if reason != "" {
		ev.Attributes = append(ev.Attributes, attr("reason", reason))
	}
	env.Emit(ev)
	if !success && len(reason) >= 7 && reason[:7] == "deposit" && amt.Sign() > 0 {
		// The deposit could not be credited (nothing was minted): send it back to L1
		// through a withdrawal from the intended recipient to the depositor.
		_, err := c.withdraw(env, nil, m.To, m.From, m.Amount.Denom, m.BaseDenom, amt, false)
		return err
	}
	return nil
}

// deposit mints to the opchild module and sends to the recipient (MintCoins +
// SendCoinsFromModuleToAccount).
func (c *Child) deposit(env sim.Env, to []byte, coins []sim.Coin) error {
	mod := address.ModuleAccount(c.Name())
	if err := env.Mint(mod, coins); err != nil {
		return err
	}
	return env.Send(mod, to, coins)
}

func (c *Child) initiateWithdrawal(env sim.Env, m *opchildv1.MsgInitiateTokenWithdrawal) error {
	sender, err := address.ParseAccount(env.AddressPrefix(), m.Sender)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("invalid sender address: %v: invalid address", err))
	}
	if m.To == "" {
		return coded("sdk", 7, "empty to address: invalid address")
	}
	if m.Amount == nil {
		return coded("sdk", 10, "invalid amount: invalid coins")
	}
	amt, ok := parseAmount(m.Amount.Amount)
	if !ok || amt.Sign() <= 0 || !amt.IsUint64() {
		return coded("sdk", 10, fmt.Sprintf("%s%s: invalid coins", m.Amount.Amount, m.Amount.Denom))
	}
	base, ok := env.Store(ChildStore).Get(denomPairKey(m.Amount.Denom))
	if !ok {
		return coded("opchild", 14, fmt.Sprintf("failed to get base denom of %s: collections: not found", m.Amount.Denom))
	}
	seq, err := c.withdraw(env, sender, m.Sender, m.To, m.Amount.Denom, string(base), amt, true)
	if err != nil {
		return err
	}
	return sim.Respond(env, &opchildv1.MsgInitiateTokenWithdrawalResponse{Sequence: seq})
}

// withdraw moves the coins to the module, burns them and records the withdrawal
// (moveFunds is false for the refund of a deposit that was never credited).
func (c *Child) withdraw(env sim.Env, fromAddr []byte, from, to, l2Denom, baseDenom string, amt *big.Int, moveFunds bool) (uint64, error) {
	if moveFunds {
		coins := []sim.Coin{{Denom: l2Denom, Amount: amt}}
		mod := address.ModuleAccount(c.Name())
		if err := env.Send(fromAddr, mod, coins); err != nil {
			return 0, err
		}
		if err := env.Burn(mod, coins); err != nil {
			return 0, err
		}
	}
	kv := env.Store(ChildStore)
	seq := getUint(kv, keyNextL2)
	if seq == 0 {
		seq = 1
	}
	setUint(kv, keyNextL2, seq+1)
	hash := WithdrawalHash(c.cfg.Bridge.ID, seq, from, to, baseDenom, amt.Uint64())
	rec := WithdrawalRecord{Sequence: seq, From: from, To: to, Denom: l2Denom, BaseDenom: baseDenom, Amount: amt.String(),
		Height: env.Height(), Time: env.Time(), Hash: hex.EncodeToString(hash[:]), TxHash: strings.ToUpper(hex.EncodeToString(env.TxHash()))}
	b, err := json.Marshal(rec)
	if err != nil {
		return 0, err
	}
	kv.Set(withdrawalKey(seq), b)
	env.Emit(event("initiate_token_withdrawal",
		"from", from, "to", to, "denom", l2Denom, "base_denom", baseDenom, "amount", amt.String(),
		"l2_sequence", strconv.FormatUint(seq, 10)))
	return seq, nil
}

// Forgettable implements sim.Forgetter: a withdrawal KeepWithdrawals past its finalization
// period (a claim of it then fails as for an unknown withdrawal).
func (c *Child) Forgettable(baseTime time.Time, store, key string, value []byte) bool {
	if c.cfg.KeepWithdrawals <= 0 || store != ChildStore || !strings.HasPrefix(key, withdrawalPrefix()) {
		return false
	}
	var rec WithdrawalRecord
	if err := json.Unmarshal(value, &rec); err != nil {
		return false
	}
	return !baseTime.Before(rec.Time.Add(c.cfg.Bridge.FinalizationPeriod + c.cfg.KeepWithdrawals))
}

// ReadWithdrawal returns a withdrawal recorded in an opchild state view.
func ReadWithdrawal(kv sim.KVReader, sequence uint64) (WithdrawalRecord, bool) {
	b, ok := kv.Get(withdrawalKey(sequence))
	if !ok {
		return WithdrawalRecord{}, false
	}
	var rec WithdrawalRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return WithdrawalRecord{}, false
	}
	return rec, true
}

// ListWithdrawals returns every withdrawal recorded in an opchild state view, in
// sequence order.
func ListWithdrawals(kv sim.KVReader) []WithdrawalRecord {
	var out []WithdrawalRecord
	kv.Iterate(withdrawalPrefix(), func(_ string, v []byte) bool {
		var rec WithdrawalRecord
		if json.Unmarshal(v, &rec) == nil {
			out = append(out, rec)
		}
		return true
	})
	return out
}

// ChildWithdrawals is a WithdrawalSource over the rollups' opchild state: latest returns
// the current state of the L2 chain of a bridge (the engine's view of that chain).
type ChildWithdrawals func(bridgeID uint64) (sim.Query, error)

// Withdrawal implements WithdrawalSource.
func (f ChildWithdrawals) Withdrawal(bridgeID, sequence uint64) (WithdrawalRecord, bool, error) {
	q, err := f(bridgeID)
	if err != nil {
		return WithdrawalRecord{}, false, err
	}
	rec, ok := ReadWithdrawal(q.Store(ChildStore), sequence)
	return rec, ok, nil
}

// Latest implements WithdrawalSource.
func (f ChildWithdrawals) Latest(bridgeID uint64) (uint64, error) {
	q, err := f(bridgeID)
	if err != nil {
		return 0, err
	}
	if next := getUint(q.Store(ChildStore), keyNextL2); next > 1 {
		return next - 1, nil
	}
	return 0, nil
}

// Routes implements sim.Module with the bridge queries of opchild (params and
// validators are the engine's).
func (c *Child) Routes(mux *http.ServeMux, at sim.QueryAt) {
	mux.HandleFunc("GET /opinit/opchild/v1/bridge_info", with(at, c.restBridgeInfo))
	mux.HandleFunc("GET /opinit/opchild/v1/next_l1_sequence", with(at, func(w http.ResponseWriter, _ *http.Request, q sim.Query) {
		gateway.WriteJSON(w, map[string]any{"next_l1_sequence": strconv.FormatUint(getUint(q.Store(ChildStore), keyNextL1), 10)})
	}))
	mux.HandleFunc("GET /opinit/opchild/v1/next_l2_sequence", with(at, func(w http.ResponseWriter, _ *http.Request, q sim.Query) {
		gateway.WriteJSON(w, map[string]any{"next_l2_sequence": strconv.FormatUint(getUint(q.Store(ChildStore), keyNextL2), 10)})
	}))
	mux.HandleFunc("GET /opinit/opchild/v1/base_denom/{denom...}", with(at, func(w http.ResponseWriter, r *http.Request, q sim.Query) {
		d := r.PathValue("denom")
		base, ok := q.Store(ChildStore).Get(denomPairKey(d))
		if !ok {
			gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found: key '"+d+"' of type string")
			return
		}
		gateway.WriteJSON(w, map[string]any{"base_denom": string(base)})
	}))
}

func (c *Child) restBridgeInfo(w http.ResponseWriter, _ *http.Request, _ sim.Query) {
	b := c.cfg.Bridge
	type bridgeInfo struct {
		BridgeID     string           `json:"bridge_id"`
		BridgeAddr   string           `json:"bridge_addr"`
		L1ChainID    string           `json:"l1_chain_id"`
		L1ClientID   string           `json:"l1_client_id"`
		BridgeConfig bridgeConfigJSON `json:"bridge_config"`
	}
	gateway.WriteJSON(w, map[string]bridgeInfo{"bridge_info": {
		BridgeID: strconv.FormatUint(b.ID, 10), BridgeAddr: bech32(c.cfg.L1Prefix, BridgeAddress(b.ID)),
		L1ChainID: c.cfg.L1ChainID, L1ClientID: c.cfg.L1ClientID, BridgeConfig: bridgeConfig(b),
	}})
}
