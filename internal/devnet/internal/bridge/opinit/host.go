package opinit

import (
	"crypto/sha3"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// HostStore is the KV namespace of ophost.
const HostStore = "ophost"

// Type URLs handled by the host module.
const (
	URLInitiateTokenDeposit    = "/opinit.ophost.v1.MsgInitiateTokenDeposit"
	URLFinalizeTokenWithdrawal = "/opinit.ophost.v1.MsgFinalizeTokenWithdrawal"
)

// WithdrawalRecord is what L1 needs to know about an L2 withdrawal to pay it out.
type WithdrawalRecord struct {
	Sequence  uint64    `json:"sequence"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	Denom     string    `json:"denom"`
	BaseDenom string    `json:"base_denom"`
	Amount    string    `json:"amount"`
	Height    int64     `json:"height"`
	Time      time.Time `json:"time"`
	Hash      string    `json:"hash"` // hex of WithdrawalHash
	TxHash    string    `json:"tx_hash"`
}

// WithdrawalSource stands in for the output proposals and Merkle proofs the real L1
// checks: it tells ophost which withdrawals the L2 of a bridge has initiated. The engine
// builds it over the rollup's state (see ChildWithdrawals).
type WithdrawalSource interface {
	Withdrawal(bridgeID, sequence uint64) (WithdrawalRecord, bool, error)
	// Latest is the sequence of the newest withdrawal (0: none).
	Latest(bridgeID uint64) (uint64, error)
}

// HostConfig configures the L1 module.
type HostConfig struct {
	Bridges     []Bridge
	Withdrawals WithdrawalSource // nil: every claim fails as unproven
	Traffic     *Traffic         // seeded deposits (nil: none)
}

// Host is the L1 ophost module.
type Host struct {
	cfg     HostConfig
	bridges map[uint64]Bridge
}

var _ sim.Module = (*Host)(nil)

// NewHost returns the L1 module.
func NewHost(cfg HostConfig) *Host {
	h := &Host{cfg: cfg, bridges: map[uint64]Bridge{}}
	for _, b := range cfg.Bridges {
		h.bridges[b.ID] = b
	}
	return h
}

// Name implements sim.Module.
func (h *Host) Name() string { return "ophost" }

// Needs implements sim.Needer: deposits answer with their sequence.
func (h *Host) Needs() []sim.Extra { return []sim.Extra{sim.NeedResponder} }

func nextL1SeqKey(id uint64) string { return fmt.Sprintf("nextL1Seq/%020d", id) }
func tokenPairKey(id uint64, l1 string) string {
	return fmt.Sprintf("tokenPair/%020d/%s", id, l1)
}
func claimedKey(id uint64, hash []byte) string {
	return fmt.Sprintf("claimed/%020d/%x", id, hash)
}

// InitGenesis implements sim.Module.
func (h *Host) InitGenesis(env sim.Env) error {
	kv := env.Store(HostStore)
	for _, b := range h.cfg.Bridges {
		if b.ID == 0 {
			return fmt.Errorf("ophost genesis: bridge id 0")
		}
		setUint(kv, nextL1SeqKey(b.ID), 1)
	}
	return nil
}

// Handlers implements sim.Module.
func (h *Host) Handlers() map[string]sim.Handler {
	return map[string]sim.Handler{
		URLInitiateTokenDeposit:    sim.Typed(h.initiateDeposit),
		URLFinalizeTokenWithdrawal: sim.Typed(h.finalizeWithdrawal),
	}
}

func (h *Host) initiateDeposit(env sim.Env, m *ophostv1.MsgInitiateTokenDeposit) error {
	sender, err := address.ParseAccount(env.AddressPrefix(), m.Sender)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("invalid sender address: %v: invalid address", err))
	}
	if m.To == "" {
		return coded("sdk", 7, "empty to address: invalid address")
	}
	if m.Amount == nil || m.Amount.Denom == "" {
		return coded("sdk", 10, "invalid amount: invalid coins")
	}
	amt, ok := parseAmount(m.Amount.Amount)
	if !ok {
		return coded("sdk", 10, fmt.Sprintf("%s%s: invalid coins", m.Amount.Amount, m.Amount.Denom))
	}
	if _, ok := h.bridges[m.BridgeId]; !ok {
		return coded("ophost", 3, fmt.Sprintf("bridge %d: not found", m.BridgeId))
	}
	if amt.Sign() > 0 {
		if err := env.Send(sender, BridgeAddress(m.BridgeId), []sim.Coin{{Denom: m.Amount.Denom, Amount: amt}}); err != nil {
			return err
		}
	}
	kv := env.Store(HostStore)
	seq := getUint(kv, nextL1SeqKey(m.BridgeId))
	if seq == 0 {
		seq = 1
	}
	setUint(kv, nextL1SeqKey(m.BridgeId), seq+1)
	l2 := L2Denom(m.BridgeId, m.Amount.Denom)
	if _, ok := kv.Get(tokenPairKey(m.BridgeId, m.Amount.Denom)); !ok {
		kv.Set(tokenPairKey(m.BridgeId, m.Amount.Denom), []byte(l2))
	}
	env.Emit(event("initiate_token_deposit",
		"bridge_id", strconv.FormatUint(m.BridgeId, 10),
		"l1_sequence", strconv.FormatUint(seq, 10),
		"from", m.Sender,
		"to", m.To,
		"l1_denom", m.Amount.Denom,
		"l2_denom", l2,
		"amount", amt.String(),
		"data", hex.EncodeToString(m.Data)))
	return sim.Respond(env, &ophostv1.MsgInitiateTokenDepositResponse{Sequence: seq})
}

func (h *Host) finalizeWithdrawal(env sim.Env, m *ophostv1.MsgFinalizeTokenWithdrawal) error {
	if _, ok := h.bridges[m.BridgeId]; !ok {
		return coded("ophost", 3, fmt.Sprintf("bridge %d: not found", m.BridgeId))
	}
	if m.Amount == nil {
		return coded("sdk", 10, "invalid amount: invalid coins")
	}
	amt, ok := parseAmount(m.Amount.Amount)
	if !ok || !amt.IsUint64() {
		return coded("sdk", 10, fmt.Sprintf("%s%s: invalid coins", m.Amount.Amount, m.Amount.Denom))
	}
	to, err := address.ParseAccount(env.AddressPrefix(), m.To)
	if err != nil {
		return coded("sdk", 7, fmt.Sprintf("invalid to address: %v: invalid address", err))
	}
	hash := WithdrawalHash(m.BridgeId, m.Sequence, m.From, m.To, m.Amount.Denom, amt.Uint64())
	kv := env.Store(HostStore)
	if _, claimed := kv.Get(claimedKey(m.BridgeId, hash[:])); claimed {
		return coded("ophost", 11, "withdrawal already finalized")
	}
	if h.cfg.Withdrawals == nil {
		return coded("ophost", 12, "failed to verify withdrawal tx: no output proposal")
	}
	rec, found, err := h.cfg.Withdrawals.Withdrawal(m.BridgeId, m.Sequence)
	if err != nil {
		return coded("ophost", 12, fmt.Sprintf("failed to verify withdrawal tx: %v", err))
	}
	if !found || rec.Hash != hex.EncodeToString(hash[:]) {
		return coded("ophost", 12, "failed to verify withdrawal tx: invalid withdrawal proofs")
	}
	b := h.bridges[m.BridgeId]
	if env.Time().Before(rec.Time.Add(b.FinalizationPeriod)) {
		return coded("ophost", 13, fmt.Sprintf("output has not finalized: claimable after %s", rec.Time.Add(b.FinalizationPeriod).UTC().Format(time.RFC3339)))
	}
	kv.Set(claimedKey(m.BridgeId, hash[:]), []byte{1})
	if amt.Sign() > 0 {
		if err := env.Send(BridgeAddress(m.BridgeId), to, []sim.Coin{{Denom: m.Amount.Denom, Amount: amt}}); err != nil {
			return err
		}
	}
	env.Emit(event("finalize_token_withdrawal",
		"bridge_id", strconv.FormatUint(m.BridgeId, 10),
		"output_index", strconv.FormatUint(m.OutputIndex, 10),
		"l2_sequence", strconv.FormatUint(m.Sequence, 10),
		"from", m.From,
		"to", m.To,
		"l1_denom", m.Amount.Denom,
		"l2_denom", L2Denom(m.BridgeId, m.Amount.Denom),
		"amount", amt.String()))
	return nil
}

// Routes implements sim.Module with the ophost gateway queries.
func (h *Host) Routes(mux *http.ServeMux, at sim.QueryAt) {
	mux.HandleFunc("GET /opinit/ophost/v1/bridges", with(at, h.restBridges))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}", with(at, h.restBridge))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/token_pairs", with(at, h.restTokenPairs))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/token_pairs/by_l1_denom", with(at, h.restPairByL1))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/token_pairs/by_l2_denom", with(at, h.restPairByL2))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/next_l1_sequence", with(at, h.restNextL1))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/withdrawals/claimed/by_hash", with(at, h.restClaimed))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/migration_info/by_l1_denom", with(at, h.restMigration))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/outputs", with(at, h.restOutputs))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/outputs/{output_index}", with(at, h.restOutput))
	mux.HandleFunc("GET /opinit/ophost/v1/bridges/{bridge_id}/last_finalized_output", with(at, h.restLastFinalized))
}

// Outputs: the devnet proposes no outputs; it presents withdrawal n as proven by output n
// (see ExecutorAPI), proposed when the withdrawal happened, with the output root
// SHA3-256(version ‖ storage root ‖ last block hash) of that one-leaf tree.

type outputJSON struct {
	OutputRoot    []byte `json:"output_root"`
	L1BlockTime   string `json:"l1_block_time"`
	L2BlockNumber string `json:"l2_block_number"`
}

func outputOf(rec WithdrawalRecord) outputJSON {
	root, _ := hex.DecodeString(rec.Hash)
	return outputJSON{OutputRoot: OutputRoot(1, root, make([]byte, 32)), L1BlockTime: gateway.Timestamp(rec.Time),
		L2BlockNumber: strconv.FormatInt(rec.Height, 10)}
}

// OutputRoot is SHA3-256(version byte ‖ storage root ‖ last block hash).
func OutputRoot(version byte, storageRoot, lastBlockHash []byte) []byte {
	buf := append([]byte{version}, storageRoot...)
	buf = append(buf, lastBlockHash...)
	sum := sha3.Sum256(buf)
	return sum[:]
}

func (h *Host) restOutput(w http.ResponseWriter, r *http.Request, _ sim.Query) {
	b, ok := h.bridgeOr404(w, r)
	if !ok {
		return
	}
	idx, err := strconv.ParseUint(r.PathValue("output_index"), 10, 64)
	if err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, "type mismatch, parameter: output_index, error: "+err.Error())
		return
	}
	var rec WithdrawalRecord
	found := false
	if h.cfg.Withdrawals != nil {
		rec, found, _ = h.cfg.Withdrawals.Withdrawal(b.ID, idx)
	}
	if !found {
		gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found: key '("+strconv.FormatUint(b.ID, 10)+", "+strconv.FormatUint(idx, 10)+")'")
		return
	}
	gateway.WriteJSON(w, struct {
		BridgeID       string     `json:"bridge_id"`
		OutputIndex    string     `json:"output_index"`
		OutputProposal outputJSON `json:"output_proposal"`
	}{strconv.FormatUint(b.ID, 10), strconv.FormatUint(idx, 10), outputOf(rec)})
}

// restLastFinalized walks the withdrawals to the newest one past the finalization period.
func (h *Host) restLastFinalized(w http.ResponseWriter, r *http.Request, _ sim.Query) {
	b, ok := h.bridgeOr404(w, r)
	if !ok {
		return
	}
	var last WithdrawalRecord
	found := false
	if h.cfg.Withdrawals != nil {
		// From the newest down: withdrawals are in time order, and a pruning devnet forgets
		// the oldest (ChildConfig.KeepWithdrawals), so a walk up from 1 would stop at once.
		now := time.Now()
		seq, err := h.cfg.Withdrawals.Latest(b.ID)
		if err != nil {
			seq = 0
		}
		for ; seq > 0; seq-- {
			rec, ok, err := h.cfg.Withdrawals.Withdrawal(b.ID, seq)
			if err != nil || !ok {
				break
			}
			if !rec.Time.Add(b.FinalizationPeriod).After(now) {
				last, found = rec, true
				break
			}
		}
	}
	if !found {
		gateway.WriteError(w, http.StatusNotFound, 5, "failed to get last finalized output: not found")
		return
	}
	gateway.WriteJSON(w, struct {
		OutputIndex    string     `json:"output_index"`
		OutputProposal outputJSON `json:"output_proposal"`
	}{strconv.FormatUint(last.Sequence, 10), outputOf(last)})
}

func (h *Host) bridgeOr404(w http.ResponseWriter, r *http.Request) (Bridge, bool) {
	id, err := strconv.ParseUint(r.PathValue("bridge_id"), 10, 64)
	if err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, "type mismatch, parameter: bridge_id, error: "+err.Error())
		return Bridge{}, false
	}
	b, ok := h.bridges[id]
	if !ok {
		gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found: key '"+strconv.FormatUint(id, 10)+"' of type uint64")
		return Bridge{}, false
	}
	return b, true
}

type bridgeJSON struct {
	BridgeID     string           `json:"bridge_id"`
	BridgeAddr   string           `json:"bridge_addr"`
	BridgeConfig bridgeConfigJSON `json:"bridge_config"`
}

func (h *Host) bridgeJSON(b Bridge, prefix string) bridgeJSON {
	return bridgeJSON{BridgeID: strconv.FormatUint(b.ID, 10), BridgeAddr: bech32(prefix, BridgeAddress(b.ID)), BridgeConfig: bridgeConfig(b)}
}

func (h *Host) restBridges(w http.ResponseWriter, _ *http.Request, q sim.Query) {
	list := []bridgeJSON{}
	for _, b := range h.cfg.Bridges {
		list = append(list, h.bridgeJSON(b, q.AddressPrefix()))
	}
	gateway.WriteJSON(w, struct {
		Bridges    []bridgeJSON `json:"bridges"`
		Pagination pagination   `json:"pagination"`
	}{list, pagination{Total: strconv.Itoa(len(list))}})
}

func (h *Host) restBridge(w http.ResponseWriter, r *http.Request, q sim.Query) {
	if b, ok := h.bridgeOr404(w, r); ok {
		gateway.WriteJSON(w, h.bridgeJSON(b, q.AddressPrefix()))
	}
}

type tokenPair struct {
	L1Denom string `json:"l1_denom"`
	L2Denom string `json:"l2_denom"`
}

func (h *Host) pairs(q sim.Query, id uint64) []tokenPair {
	out := []tokenPair{}
	prefix := fmt.Sprintf("tokenPair/%020d/", id)
	q.Store(HostStore).Iterate(prefix, func(k string, v []byte) bool {
		out = append(out, tokenPair{L1Denom: k[len(prefix):], L2Denom: string(v)})
		return true
	})
	return out
}

func (h *Host) restTokenPairs(w http.ResponseWriter, r *http.Request, q sim.Query) {
	if b, ok := h.bridgeOr404(w, r); ok {
		ps := h.pairs(q, b.ID)
		gateway.WriteJSON(w, struct {
			TokenPairs []tokenPair `json:"token_pairs"`
			Pagination pagination  `json:"pagination"`
		}{ps, pagination{Total: strconv.Itoa(len(ps))}})
	}
}

func (h *Host) restPairByL1(w http.ResponseWriter, r *http.Request, q sim.Query) {
	b, ok := h.bridgeOr404(w, r)
	if !ok {
		return
	}
	l1 := r.URL.Query().Get("l1_denom")
	for _, p := range h.pairs(q, b.ID) {
		if p.L1Denom == l1 {
			gateway.WriteJSON(w, map[string]any{"token_pair": p})
			return
		}
	}
	gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found: key '"+l1+"'")
}

func (h *Host) restPairByL2(w http.ResponseWriter, r *http.Request, q sim.Query) {
	b, ok := h.bridgeOr404(w, r)
	if !ok {
		return
	}
	l2 := r.URL.Query().Get("l2_denom")
	for _, p := range h.pairs(q, b.ID) {
		if p.L2Denom == l2 {
			gateway.WriteJSON(w, map[string]any{"token_pair": p})
			return
		}
	}
	gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found: key '"+l2+"'")
}

func (h *Host) restNextL1(w http.ResponseWriter, r *http.Request, q sim.Query) {
	if b, ok := h.bridgeOr404(w, r); ok {
		gateway.WriteJSON(w, map[string]any{"next_l1_sequence": strconv.FormatUint(getUint(q.Store(HostStore), nextL1SeqKey(b.ID)), 10)})
	}
}

func (h *Host) restClaimed(w http.ResponseWriter, r *http.Request, q sim.Query) {
	b, ok := h.bridgeOr404(w, r)
	if !ok {
		return
	}
	hash, err := base64.StdEncoding.DecodeString(r.URL.Query().Get("withdrawal_hash"))
	if err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid withdrawal_hash: "+err.Error())
		return
	}
	_, claimed := q.Store(HostStore).Get(claimedKey(b.ID, hash))
	gateway.WriteJSON(w, map[string]any{"claimed": claimed})
}

func (h *Host) restMigration(w http.ResponseWriter, r *http.Request, _ sim.Query) {
	if _, ok := h.bridgeOr404(w, r); ok {
		// No devnet bridge is migrated: the querier's NotFound (OPinit
		// x/ophost/keeper/querier.go MigrationInfo), which InterwovenKit reads as "not
		// migrated" (packages/interwovenkit-react/src/pages/bridge/op/data.ts checkMigrationInfo).
		gateway.WriteError(w, http.StatusNotFound, 5, "migration info not found")
	}
}
