package server

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// NewREST returns the Cosmos REST handler of a chain, with the modules' routes registered.
func NewREST(c *engine.Chain, modules []sim.Module, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &rest{c: c, log: log}
	for _, m := range modules {
		if ms, ok := m.(MetadataSource); ok {
			s.meta = append(s.meta, ms)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cosmos/tx/v1beta1/txs/block/{height}", s.txsByBlock)
	mux.HandleFunc("GET /cosmos/tx/v1beta1/txs/{hash}", s.txByHash)
	mux.HandleFunc("POST /cosmos/tx/v1beta1/txs", s.broadcast)
	mux.HandleFunc("POST /cosmos/tx/v1beta1/simulate", s.simulate)
	mux.HandleFunc("GET /cosmos/tx/v1beta1/txs", s.txsByEvents)
	mux.HandleFunc("GET /cosmos/base/tendermint/v1beta1/blocks/latest", s.blockAt)
	mux.HandleFunc("GET /cosmos/base/tendermint/v1beta1/blocks/{height}", s.blockAt)
	mux.HandleFunc("GET /cosmos/base/tendermint/v1beta1/node_info", s.nodeInfo)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/balances/{address}", s.balances)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/balances/{address}/by_denom", s.balanceByDenom)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/supply", s.supply)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/accounts", s.accounts)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/accounts/{address}", s.account)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/account_info/{address}", s.accountInfo)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/module_accounts", s.moduleAccounts)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/supply/by_denom", s.supplyOf)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/denoms_metadata", s.denomsMetadata)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/denoms_metadata_by_query_string", s.denomMetadataByQuery)
	if c.Kind() == engine.KindL1 {
		mux.HandleFunc("GET /initia/tx/v1/gas_prices", s.serveGasPrices)
		mux.HandleFunc("GET /initia/tx/v1/gas_prices/{denom}", s.serveGasPrice)
	}
	if c.Kind() != engine.KindL1 {
		mux.HandleFunc("GET /opinit/opchild/v1/validators", s.opchildValidators)
		mux.HandleFunc("GET /opinit/opchild/v1/validator/{valoper}", s.opchildValidator)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		gateway.WriteError(w, http.StatusNotImplemented, 12, "Not Implemented")
	})
	// each module gets its own mux, so modules can neither clash with each other nor with
	// the built-ins (a module's route wins over a built-in one)
	var muxes []*http.ServeMux
	for _, m := range modules {
		mm := http.NewServeMux()
		m.Routes(mm, c.QueryAt)
		muxes = append(muxes, mm)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, mm := range muxes {
			if _, pattern := mm.Handler(r); pattern != "" {
				mm.ServeHTTP(w, r)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *rest) validatorJSON() ordered {
	p := s.c.Config().Bech32Prefix
	return ordered{
		{"moniker", "devnet"}, {"operator_address", engine.Bech32(p+"valoper", s.c.ValidatorAddress())},
		{"consensus_pubkey", ordered{{"@type", "/cosmos.crypto.ed25519.PubKey"}, {"key", b64(s.c.ValidatorPubKey())}}},
		{"cons_power", "1"},
	}
}

func (s *rest) opchildValidators(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, ordered{{"validators", []any{s.validatorJSON()}}, {"pagination", ordered{{"next_key", nil}, {"total", "1"}}}})
}

func (s *rest) opchildValidator(w http.ResponseWriter, r *http.Request) {
	want := engine.Bech32(s.c.Config().Bech32Prefix+"valoper", s.c.ValidatorAddress())
	if r.PathValue("valoper") != want {
		gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found: key '"+r.PathValue("valoper")+"' of type github.com/cosmos/gogoproto/cosmos.base.v1beta1.ValAddress")
		return
	}
	writeJSON(w, http.StatusOK, ordered{{"validator", s.validatorJSON()}})
}

type rest struct {
	c    *engine.Chain
	log  *slog.Logger
	meta []MetadataSource
}

func (s *rest) query(w http.ResponseWriter, r *http.Request) (sim.Query, bool) {
	q, err := s.c.QueryAt(r)
	if err != nil {
		var fe *engine.FutureHeightError
		if errors.As(err, &fe) {
			// baseapp's CreateQueryContext error, through the gateway's Unknown mapping
			gateway.WriteError(w, http.StatusInternalServerError, 2, "codespace sdk code 26: invalid height: cannot query with height in the future; please provide a valid height")
			return nil, false
		}
		var pe *engine.PrunedHeightError
		if errors.As(err, &pe) {
			// baseapp's CreateQueryContext when the IAVL version is pruned
			gateway.WriteError(w, http.StatusInternalServerError, 2, prunedStateLog(pe, s.c.Height()))
			return nil, false
		}
		gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
		return nil, false
	}
	return q, true
}

func (s *rest) txsByBlock(w http.ResponseWriter, r *http.Request) {
	h, err := strconv.ParseInt(r.PathValue("height"), 10, 64)
	if err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, fmt.Sprintf("type mismatch, parameter: height, error: %v", err))
		return
	}
	cur := s.c.Height()
	if h < 1 || h > cur {
		gateway.WriteError(w, http.StatusInternalServerError, 2, fmt.Sprintf("codespace sdk code 26: invalid height: requested height %d but height must not be less than 1 or greater than the current height %d", h, cur))
		return
	}
	b, err := s.c.Block(h)
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
		return
	}
	offset, limit := pageArgs(r)
	if k := r.URL.Query().Get("pagination.key"); k != "" {
		if raw, err := base64.StdEncoding.DecodeString(k); err == nil {
			if n, err := strconv.Atoi(string(raw)); err == nil {
				offset = n
			}
		}
	}
	txs := []any{}
	end := min(offset+limit, len(b.Txs))
	for i := offset; i < end; i++ {
		tj, err := txJSON(b.Txs[i], false)
		if err != nil {
			gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
			return
		}
		txs = append(txs, tj)
	}
	var next any
	if end < len(b.Txs) {
		next = b64([]byte(strconv.Itoa(end)))
	}
	writeJSON(w, http.StatusOK, ordered{
		{"txs", txs}, {"block_id", restBlockID(b.ID)}, {"block", restBlock(b, s.c.Config().Bech32Prefix, false)},
		{"pagination", ordered{{"next_key", next}, {"total", strconv.Itoa(len(b.Txs))}}},
	})
}

func pageArgs(r *http.Request) (offset, limit int) {
	limit = 100
	if v, err := strconv.Atoi(r.URL.Query().Get("pagination.limit")); err == nil && v > 0 {
		limit = v
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("pagination.offset")); err == nil && v > 0 {
		offset = v
	}
	return offset, limit
}

func (s *rest) txByHash(w http.ResponseWriter, r *http.Request) {
	hs := strings.TrimPrefix(r.PathValue("hash"), "0x")
	raw, err := hex.DecodeString(hs)
	if err != nil || len(raw) != 32 {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid tx hash: "+hs)
		return
	}
	var h [32]byte
	copy(h[:], raw)
	b, i, ok := s.c.TxByHash(h)
	if !ok {
		gateway.WriteError(w, http.StatusNotFound, 5, "tx not found: "+strings.ToUpper(hs))
		return
	}
	tj, err := txJSON(b.Txs[i], false)
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
		return
	}
	tr, err := txResponse(b, i)
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, ordered{{"tx", tj}, {"tx_response", tr}})
}

// txsByEvents is GetTxsEvent: `query` (SDK 0.50) or repeated `events` joined with AND.
func (s *rest) txsByEvents(w http.ResponseWriter, r *http.Request) {
	qs := r.URL.Query()
	query := qs.Get("query")
	if query == "" {
		query = strings.Join(qs["events"], " AND ")
	}
	conds, err := parseQuery(query)
	if err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, "query cannot be empty")
		return
	}
	page, limit := 1, 100
	if v, err := strconv.Atoi(qs.Get("page")); err == nil && v > 0 {
		page = v
	}
	if v, err := strconv.Atoi(qs.Get("limit")); err == nil && v > 0 {
		limit = min(v, 100)
	}
	desc := qs.Get("order_by") == "ORDER_BY_DESC" || qs.Get("order_by") == "2"
	type hit struct {
		b *engine.Block
		i int
	}
	var hits []hit
	for h := int64(1); h <= s.c.Height(); h++ {
		b, err := s.c.Block(h)
		if err != nil {
			break
		}
		for i := range b.Txs {
			if txMatches(conds, b.Height, upperHex(b.TxHashes[i][:]), b.Results[i].Events) {
				hits = append(hits, hit{b, i})
			}
		}
	}
	if desc {
		for l, r := 0, len(hits)-1; l < r; l, r = l+1, r-1 {
			hits[l], hits[r] = hits[r], hits[l]
		}
	}
	start := min((page-1)*limit, len(hits))
	end := min(start+limit, len(hits))
	txs, resps := []any{}, []any{}
	for _, h := range hits[start:end] {
		tj, err := txJSON(h.b.Txs[h.i], false)
		if err != nil {
			gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
			return
		}
		tr, err := txResponse(h.b, h.i)
		if err != nil {
			gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
			return
		}
		txs, resps = append(txs, tj), append(resps, tr)
	}
	writeJSON(w, http.StatusOK, ordered{{"txs", txs}, {"tx_responses", resps}, {"pagination", nil}, {"total", strconv.Itoa(len(hits))}})
}

func (s *rest) broadcast(w http.ResponseWriter, r *http.Request) {
	var req struct {
		TxBytes string `json:"tx_bytes"`
		Mode    string `json:"mode"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	raw, err := base64.StdEncoding.DecodeString(req.TxBytes)
	if err != nil || len(raw) == 0 {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid tx_bytes")
		return
	}
	res := s.c.BroadcastTxSync(raw)
	writeJSON(w, http.StatusOK, ordered{{"tx_response", ordered{
		{"height", "0"}, {"txhash", upperHex(res.Hash[:])}, {"codespace", res.Codespace}, {"code", res.Code},
		{"data", ""}, {"raw_log", res.Log}, {"logs", []any{}}, {"info", ""}, {"gas_wanted", "0"}, {"gas_used", "0"},
		{"tx", nil}, {"timestamp", ""}, {"events", []any{}},
	}}})
}

func (s *rest) blockAt(w http.ResponseWriter, r *http.Request) {
	var h int64
	if v := r.PathValue("height"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, fmt.Sprintf("type mismatch, parameter: height, error: %v", err))
			return
		}
		h = n
		if cur := s.c.Height(); h > cur {
			gateway.WriteError(w, http.StatusBadRequest, 3, "requested block height is bigger then the chain length")
			return
		}
	}
	b, err := s.c.Block(h)
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
		return
	}
	p := s.c.Config().Bech32Prefix
	writeJSON(w, http.StatusOK, ordered{{"block_id", restBlockID(b.ID)}, {"block", restBlock(b, p, false)}, {"sdk_block", restBlock(b, p, true)}})
}

func (s *rest) nodeInfo(w http.ResponseWriter, _ *http.Request) {
	cfg := s.c.Config()
	writeJSON(w, http.StatusOK, ordered{
		{"default_node_info", nodeInfo(s.c, true)},
		{"application_version", ordered{
			{"name", cfg.AppName}, {"app_name", "minitiad"}, {"version", cfg.AppVersion},
			{"git_commit", hex.EncodeToString(s.c.ValidatorAddress())}, {"build_tags", ""},
			{"go_version", "go version " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH},
			{"build_deps", []any{}}, {"cosmos_sdk_version", "v0.50.14-initia.3"},
		}},
	})
}

func (s *rest) addr(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	a, err := engine.ParseAddress(s.c.Config().Bech32Prefix, r.PathValue("address"))
	if err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid address: "+err.Error())
		return nil, false
	}
	return a, true
}

func (s *rest) balances(w http.ResponseWriter, r *http.Request) {
	addr, ok := s.addr(w, r)
	if !ok {
		return
	}
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	offset, limit := pageArgs(r)
	all := engine.Balances(q, addr)
	end := min(offset+limit, len(all))
	page := []engine.Coin{}
	if offset < end {
		page = all[offset:end]
	}
	var next any
	if end < len(all) {
		next = b64([]byte(page[len(page)-1].Denom))
	}
	writeJSON(w, http.StatusOK, ordered{{"balances", coinsJSON(page)}, {"pagination", ordered{{"next_key", next}, {"total", "0"}}}})
}

func (s *rest) balanceByDenom(w http.ResponseWriter, r *http.Request) {
	addr, ok := s.addr(w, r)
	if !ok {
		return
	}
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	d := r.URL.Query().Get("denom")
	if d == "" {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid denom")
		return
	}
	writeJSON(w, http.StatusOK, ordered{{"balance", ordered{{"denom", d}, {"amount", q.Balance(addr, d).String()}}}})
}

func (s *rest) supply(w http.ResponseWriter, r *http.Request) {
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	sup := engine.Supply(q)
	writeJSON(w, http.StatusOK, ordered{{"supply", coinsJSON(sup)}, {"pagination", ordered{{"next_key", nil}, {"total", strconv.Itoa(len(sup))}}}})
}

var moduleNames = []string{"fee_collector", "distribution", "bank"}

func moduleName(a engine.Account) string {
	for _, n := range moduleNames {
		if string(address.ModuleAccount(n)) == string(a.Address) {
			return n
		}
	}
	return ""
}

// isEVMContract: on EVM chains contract addresses are minievm ContractAccounts (the EVM
// module keeps its contracts under "c/<hex>").
func (s *rest) isEVMContract(q sim.Query, addr []byte) bool {
	if s.c.Kind() != engine.KindEVM || q == nil {
		return false
	}
	_, ok := q.Store("evm").Get("c/" + hex.EncodeToString(addr))
	return ok
}

func (s *rest) accountJSON(a engine.Account, q ...sim.Query) ordered {
	p := s.c.Config().Bech32Prefix
	var pk any
	if a.PubKeyType != "" {
		pk = ordered{{"@type", a.PubKeyType}, {"key", b64(a.PubKey)}}
	}
	base := ordered{{"address", engine.Bech32(p, a.Address)}, {"pub_key", pk},
		{"account_number", strconv.FormatUint(a.Number, 10)}, {"sequence", strconv.FormatUint(a.Sequence, 10)}}
	if n := moduleName(a); n != "" {
		return ordered{{"@type", "/cosmos.auth.v1beta1.ModuleAccount"}, {"base_account", base}, {"name", n}, {"permissions", []string{}}}
	}
	if len(q) > 0 && s.isEVMContract(q[0], a.Address) {
		codeHash := sha256.Sum256(append([]byte("code/"), a.Address...))
		return ordered{{"@type", "/minievm.evm.v1.ContractAccount"}, {"base_account", base}, {"code_hash", b64(codeHash[:])}}
	}
	return append(ordered{{"@type", "/cosmos.auth.v1beta1.BaseAccount"}}, base...)
}

func (s *rest) accounts(w http.ResponseWriter, r *http.Request) {
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	all := engine.AllAccounts(q)
	offset, limit := pageArgs(r)
	end := min(offset+limit, len(all))
	out := []any{}
	for i := offset; i < end; i++ {
		out = append(out, s.accountJSON(all[i], q))
	}
	var next any
	if end < len(all) {
		next = b64(all[end-1].Address)
	}
	writeJSON(w, http.StatusOK, ordered{{"accounts", out}, {"pagination", ordered{{"next_key", next}, {"total", "0"}}}})
}

func (s *rest) account(w http.ResponseWriter, r *http.Request) {
	a, q, ok := s.accountAt(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, ordered{{"account", s.accountJSON(a, q)}})
}

// accountAt reads the path's account at the request's height; when it cannot (a bad address
// or height, no such account) it has answered the request itself.
func (s *rest) accountAt(w http.ResponseWriter, r *http.Request) (engine.Account, sim.Query, bool) {
	addr, ok := s.addr(w, r)
	if !ok {
		return engine.Account{}, nil, false
	}
	q, ok := s.query(w, r)
	if !ok {
		return engine.Account{}, nil, false
	}
	a, found := engine.AccountAt(q, addr)
	if !found {
		gateway.WriteError(w, http.StatusNotFound, 5, fmt.Sprintf("account %s not found", r.PathValue("address")))
		return engine.Account{}, nil, false
	}
	return a, q, true
}

// accountInfo is x/auth's AccountInfo query: the base account of any kind of account, flat.
// InterwovenKit polls it on the hook chain before it signs an op hook
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/bridge/data/account.ts).
func (s *rest) accountInfo(w http.ResponseWriter, r *http.Request) {
	a, _, ok := s.accountAt(w, r)
	if !ok {
		return
	}
	var pk any
	if a.PubKeyType != "" {
		pk = ordered{{"@type", a.PubKeyType}, {"key", b64(a.PubKey)}}
	}
	writeJSON(w, http.StatusOK, ordered{{"info", ordered{{"address", engine.Bech32(s.c.Config().Bech32Prefix, a.Address)}, {"pub_key", pk},
		{"account_number", strconv.FormatUint(a.Number, 10)}, {"sequence", strconv.FormatUint(a.Sequence, 10)}}}})
}

func (s *rest) moduleAccounts(w http.ResponseWriter, r *http.Request) {
	q, ok := s.query(w, r)
	if !ok {
		return
	}
	out := []any{}
	for _, n := range moduleNames {
		if a, ok := engine.AccountAt(q, address.ModuleAccount(n)); ok {
			out = append(out, s.accountJSON(a))
		}
	}
	writeJSON(w, http.StatusOK, ordered{{"accounts", out}})
}

// prunedStateLog is the SDK's answer to a state query below the pruned node's lowest kept
// version (baseapp CreateQueryContext: ErrInvalidRequest wrapping IAVL's error).
func prunedStateLog(pe *engine.PrunedHeightError, latest int64) string {
	return fmt.Sprintf("codespace sdk code 18: invalid request: failed to load state at height %d; version does not exist (latest height: %d)", pe.Requested, latest)
}
