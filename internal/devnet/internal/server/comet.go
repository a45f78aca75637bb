package server

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

// rpcError is a JSON-RPC error with the HTTP status CometBFT answers it with.
type rpcError struct {
	Code    int
	Message string
	Data    string
	Status  int
}

func (e *rpcError) Error() string { return e.Data }

func internalErr(err error) *rpcError {
	return &rpcError{Code: -32603, Message: "Internal error", Data: err.Error(), Status: http.StatusInternalServerError}
}

func invalidParams(msg string) *rpcError {
	return &rpcError{Code: -32602, Message: "Invalid params", Data: msg, Status: http.StatusInternalServerError}
}

type cometMethod struct {
	args []string
	fn   func(p map[string]string) (any, error)
}

// Comet serves one chain's CometBFT RPC.
type Comet struct {
	c       *engine.Chain
	log     *slog.Logger
	methods map[string]cometMethod
}

// NewComet returns the CometBFT RPC handler of a chain.
func NewComet(c *engine.Chain, log *slog.Logger) *Comet {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Comet{c: c, log: log}
	s.methods = map[string]cometMethod{
		"health":            {nil, func(map[string]string) (any, error) { return ordered{}, nil }},
		"status":            {nil, s.status},
		"abci_info":         {nil, s.abciInfo},
		"block":             {[]string{"height"}, s.block},
		"block_results":     {[]string{"height"}, s.blockResults},
		"blockchain":        {[]string{"minHeight", "maxHeight"}, s.blockchain},
		"tx":                {[]string{"hash", "prove"}, s.tx},
		"tx_search":         {[]string{"query", "prove", "page", "per_page", "order_by"}, s.txSearch},
		"broadcast_tx_sync": {[]string{"tx"}, s.broadcast},
		"abci_query":        {[]string{"path", "data", "height", "prove"}, s.abciQuery},
		"validators":        {[]string{"height", "page", "per_page"}, s.validators},
		"genesis":           {nil, s.genesis},
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func rpcEnvelope(id json.RawMessage, result any, err error) (ordered, int) {
	if id == nil {
		id = json.RawMessage("-1")
	}
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = internalErr(err)
		}
		return ordered{{"jsonrpc", "2.0"}, {"id", id}, {"error", ordered{{"code", re.Code}, {"message", re.Message}, {"data", re.Data}}}}, re.Status
	}
	return ordered{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}, http.StatusOK
}

// ServeHTTP implements http.Handler: GET /<method>?args (URI form) and POST / (JSON-RPC, batches).
func (s *Comet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		s.servePost(w, r)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		w.Header().Set("Content-Type", "text/html")
		names := make([]string, 0, len(s.methods))
		for n := range s.methods {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "<html><body>Available endpoints:<br>%s</body></html>", strings.Join(names, "<br>"))
		return
	}
	m, ok := s.methods[name]
	if !ok {
		env, _ := rpcEnvelope(nil, nil, &rpcError{Code: -32601, Message: "Method not found", Data: ""})
		writeJSON(w, http.StatusNotFound, env)
		return
	}
	p := map[string]string{}
	for _, a := range m.args {
		if v := r.URL.Query().Get(a); v != "" {
			p[a] = strings.Trim(v, `"`)
		}
	}
	res, err := m.fn(p)
	env, status := rpcEnvelope(nil, res, err)
	writeJSON(w, status, env)
}

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func (s *Comet) servePost(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		return
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var reqs []rpcRequest
		if err := json.Unmarshal(body, &reqs); err != nil {
			env, _ := rpcEnvelope(nil, nil, &rpcError{Code: -32700, Message: "Parse error", Data: err.Error()})
			writeJSON(w, http.StatusInternalServerError, env)
			return
		}
		out := make([]any, 0, len(reqs))
		for _, q := range reqs {
			env, _ := s.call(q)
			out = append(out, env)
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	var q rpcRequest
	if err := json.Unmarshal(body, &q); err != nil {
		env, _ := rpcEnvelope(nil, nil, &rpcError{Code: -32700, Message: "Parse error", Data: err.Error()})
		writeJSON(w, http.StatusInternalServerError, env)
		return
	}
	env, status := s.call(q)
	writeJSON(w, status, env)
}

func (s *Comet) call(q rpcRequest) (ordered, int) {
	m, ok := s.methods[q.Method]
	if !ok {
		return rpcEnvelope(q.ID, nil, &rpcError{Code: -32601, Message: "Method not found", Status: http.StatusOK})
	}
	p, err := jsonParams(q.Params, m.args)
	if err != nil {
		return rpcEnvelope(q.ID, nil, invalidParams(err.Error()))
	}
	res, err := m.fn(p)
	return rpcEnvelope(q.ID, res, err)
}

// jsonParams flattens named or positional JSON-RPC params to strings.
func jsonParams(raw json.RawMessage, names []string) (map[string]string, error) {
	p := map[string]string{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return p, nil
	}
	conv := func(v json.RawMessage) string {
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
		return strings.Trim(string(v), `"`)
	}
	if raw[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return nil, err
		}
		for i, v := range arr {
			if i < len(names) && string(v) != "null" {
				p[names[i]] = conv(v)
			}
		}
		return p, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	for k, v := range obj {
		if string(v) != "null" {
			p[k] = conv(v)
		}
	}
	return p, nil
}

func (s *Comet) height(p map[string]string) (int64, error) {
	v := p["height"]
	if v == "" || v == "0" {
		return 0, nil
	}
	h, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, invalidParams(fmt.Sprintf("error converting http params to arguments: %v", err))
	}
	if h < 0 {
		return 0, internalErr(fmt.Errorf("height must be greater than 0, but got %d", h))
	}
	return h, nil
}

func (s *Comet) status(map[string]string) (any, error) {
	latest, err := s.c.Block(0)
	if err != nil {
		return nil, err
	}
	// The earliest block a pruned node still holds is its base.
	first, err := s.c.Block(s.c.Base())
	if err != nil {
		return nil, err
	}
	return ordered{
		{"node_info", nodeInfo(s.c, false)},
		{"sync_info", ordered{
			{"latest_block_hash", upperHex(latest.ID.Hash)}, {"latest_app_hash", upperHex(emptyHash(latest.AppHash))},
			{"latest_block_height", i64(latest.Height)}, {"latest_block_time", rfc3339(latest.Time)},
			{"earliest_block_hash", upperHex(first.ID.Hash)}, {"earliest_app_hash", upperHex(emptyHash(first.AppHash))},
			{"earliest_block_height", i64(first.Height)}, {"earliest_block_time", rfc3339(first.Time)},
			{"catching_up", false},
		}},
		{"validator_info", ordered{
			{"address", upperHex(s.c.ValidatorAddress())},
			{"pub_key", ordered{{"type", "tendermint/PubKeyEd25519"}, {"value", b64(s.c.ValidatorPubKey())}}},
			{"voting_power", "1"},
		}},
	}, nil
}

// nodeID is a stable fake p2p id per chain.
func nodeID(c *engine.Chain) string { return hex.EncodeToString(c.ValidatorAddress()) }

func nodeInfo(c *engine.Chain, rest bool) ordered {
	channels := any("40414230386061")
	if rest {
		raw, _ := hex.DecodeString("40414230386061")
		channels = b64(raw)
	}
	id := "id"
	if rest {
		id = "default_node_id"
	}
	return ordered{
		{"protocol_version", ordered{{"p2p", "8"}, {"block", "11"}, {"app", "0"}}},
		{id, nodeID(c)}, {"listen_addr", "tcp://127.0.0.1:26656"}, {"network", c.ChainID()},
		{"version", "0.38.19"}, {"channels", channels}, {"moniker", "devnet"},
		{"other", ordered{{"tx_index", "on"}, {"rpc_address", "tcp://127.0.0.1:26657"}}},
	}
}

func (s *Comet) abciInfo(map[string]string) (any, error) {
	b, err := s.c.Block(0)
	if err != nil {
		return nil, err
	}
	cfg := s.c.Config()
	data := "minitia" // what every rollup's app answers; the L1 says initia
	if s.c.Kind() == engine.KindL1 {
		data = "initia"
	}
	return ordered{{"response", ordered{{"data", data}, {"version", cfg.AppVersion},
		{"last_block_height", i64(b.Height)}, {"last_block_app_hash", b64(b.ResultAppHash)}}}}, nil
}

// genesis renders the genesis document: consensus params and the auth and bank state at
// height 1 (modules' genesis state is not rendered).
func (s *Comet) genesis(map[string]string) (any, error) {
	q, err := s.c.Query(1)
	if err != nil {
		return nil, err
	}
	cfg := s.c.Config()
	accs := []any{}
	bals := []any{}
	r := &rest{c: s.c}
	for _, a := range engine.AllAccounts(q) {
		if moduleName(a) != "" {
			continue // module accounts are created at InitChain, not listed in genesis
		}
		accs = append(accs, r.accountJSON(a))
		if coins := engine.Balances(q, a.Address); len(coins) > 0 {
			bals = append(bals, ordered{{"address", engine.Bech32(cfg.Bech32Prefix, a.Address)}, {"coins", coinsJSON(coins)}})
		}
	}
	cp := ordered{
		{"block", ordered{{"max_bytes", "22020096"}, {"max_gas", "-1"}}},
		{"evidence", ordered{{"max_age_num_blocks", "100000"}, {"max_age_duration", "172800000000000"}, {"max_bytes", "1048576"}}},
		{"validator", ordered{{"pub_key_types", []string{"ed25519"}}}},
		{"version", ordered{{"app", "0"}}},
		{"abci", ordered{{"vote_extensions_enable_height", "0"}}},
	}
	return ordered{{"genesis", ordered{
		{"genesis_time", rfc3339(cfg.GenesisTime)}, {"chain_id", cfg.ChainID}, {"initial_height", "1"},
		{"consensus_params", cp}, {"app_hash", ""},
		{"app_state", ordered{
			{"auth", ordered{{"params", ordered{{"max_memo_characters", "256"}, {"tx_sig_limit", "7"}, {"tx_size_cost_per_byte", "10"},
				{"sig_verify_cost_ed25519", "590"}, {"sig_verify_cost_secp256k1", "1000"}}}, {"accounts", accs}}},
			{"bank", ordered{{"params", ordered{{"send_enabled", []any{}}, {"default_send_enabled", true}}}, {"balances", bals},
				{"supply", coinsJSON(engine.Supply(q))}, {"denom_metadata", []any{}}, {"send_enabled", []any{}}}},
		}},
	}}}, nil
}

func (s *Comet) validators(p map[string]string) (any, error) {
	h, err := s.height(p)
	if err != nil {
		return nil, err
	}
	b, err := s.c.Block(h)
	if err != nil {
		return nil, err
	}
	v := ordered{{"address", upperHex(s.c.ValidatorAddress())},
		{"pub_key", ordered{{"type", "tendermint/PubKeyEd25519"}, {"value", b64(s.c.ValidatorPubKey())}}},
		{"voting_power", "1"}, {"proposer_priority", "0"}}
	return ordered{{"block_height", i64(b.Height)}, {"validators", []any{v}}, {"count", "1"}, {"total", "1"}}, nil
}

func (s *Comet) block(p map[string]string) (any, error) {
	h, err := s.height(p)
	if err != nil {
		return nil, err
	}
	b, err := s.c.Block(h)
	if err != nil {
		return nil, err
	}
	return cometBlock(b), nil
}

func (s *Comet) blockResults(p map[string]string) (any, error) {
	h, err := s.height(p)
	if err != nil {
		return nil, err
	}
	b, err := s.c.Block(h)
	if err != nil {
		return nil, err
	}
	return cometBlockResults(b), nil
}

func (s *Comet) blockchain(p map[string]string) (any, error) {
	last := s.c.Height()
	minH, maxH := int64(1), last
	if v := p["minHeight"]; v != "" && v != "0" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, invalidParams(err.Error())
		}
		minH = n
	}
	if v := p["maxHeight"]; v != "" && v != "0" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, invalidParams(err.Error())
		}
		maxH = min(n, last)
	}
	if minH > maxH {
		return nil, internalErr(fmt.Errorf("min height %d can't be greater than max height %d", minH, maxH))
	}
	minH = max(minH, maxH-19) // CometBFT returns at most 20 metas
	metas := []any{}
	for h := maxH; h >= minH; h-- {
		b, err := s.c.Block(h)
		if err != nil {
			return nil, err
		}
		size := 0
		for _, t := range b.Txs {
			size += len(t)
		}
		metas = append(metas, ordered{{"block_id", cometBlockID(b.ID)}, {"block_size", strconv.Itoa(size + 600)},
			{"header", cometHeader(b)}, {"num_txs", strconv.Itoa(len(b.Txs))}})
	}
	return ordered{{"last_height", i64(last)}, {"block_metas", metas}}, nil
}

// parseHash accepts 0x-hex (URI form), bare hex or base64 (JSON-RPC []byte form).
func parseHash(v string) ([32]byte, error) {
	var h [32]byte
	v = strings.TrimPrefix(strings.TrimPrefix(v, "0x"), "0X")
	b, err := hex.DecodeString(v)
	if err != nil || len(b) != 32 {
		b, err = base64.StdEncoding.DecodeString(v)
	}
	if err != nil || len(b) != 32 {
		return h, invalidParams("invalid tx hash")
	}
	copy(h[:], b)
	return h, nil
}

func (s *Comet) tx(p map[string]string) (any, error) {
	h, err := parseHash(p["hash"])
	if err != nil {
		return nil, err
	}
	b, i, ok := s.c.TxByHash(h)
	if !ok {
		return nil, internalErr(fmt.Errorf("tx (%X) not found", h[:]))
	}
	return cometTx(b, i), nil
}

func (s *Comet) broadcast(p map[string]string) (any, error) {
	v := p["tx"]
	var raw []byte
	var err error
	if strings.HasPrefix(v, "0x") {
		raw, err = hex.DecodeString(v[2:])
	} else {
		raw, err = base64.StdEncoding.DecodeString(v)
	}
	if err != nil || len(raw) == 0 {
		return nil, invalidParams("invalid tx bytes")
	}
	r := s.c.BroadcastTxSync(raw)
	return ordered{{"code", r.Code}, {"data", b64(r.Data)}, {"log", r.Log}, {"codespace", r.Codespace}, {"hash", upperHex(r.Hash[:])}}, nil
}
