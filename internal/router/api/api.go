// Package api is the router's HTTP API, wire-compatible with the Skip Go API v2 and Initia's
// router (InterwovenKit): route computation, op hooks, message generation, and the
// discovery endpoints (chains, assets, bridges, balances).
//
// One routes table maps paths to handlers; every handler decodes JSON leniently (unknown
// fields ignored, body size bounded), returns either a value or an error, and one place
// writes both, so every bad input is a 4xx JSON body with a machine reason and no handler can
// leak a 5xx for client mistakes. Panics are recovered and reported as internal errors.
package api

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/holiman/uint256"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/swaggerui"
)

// Reasons specific to the HTTP layer.
const (
	ReasonInvalidJSON   = "INVALID_JSON"
	ReasonBodyTooLarge  = "BODY_TOO_LARGE"
	ReasonHookNotNeeded = "OP_HOOK_NOT_REQUIRED"
	// ReasonHookAmountRequired: /op-hook without amount_in for a route that needs a hook.
	ReasonHookAmountRequired = "OP_HOOK_AMOUNT_REQUIRED"
	ReasonMissingAddress     = "MISSING_ADDRESS"
)

// BalanceSource reads an account's balances on a chain (base-unit decimal strings by denom).
// RESTBalances implements it with the project's cosmosrest client.
type BalanceSource interface {
	Balances(ctx context.Context, c *registry.Chain, address string) (map[string]string, error)
}

// Config configures the API.
type Config struct {
	// Route holds the route engine's estimates (durations, fees, defaults).
	Route route.Config
	// IBCTimeout is the default relative timeout of generated IBC transfers (5 min when 0).
	IBCTimeout time.Duration
	// MaxBodyBytes bounds request bodies (1 MiB when 0).
	MaxBodyBytes int64
	// Now is the clock for timeouts (time.Now when nil); tests pin it.
	Now func() time.Time
	// Balances serves /v2/info/balances; nil answers each chain with an error entry.
	Balances BalanceSource
}

type server struct {
	cfg  Config
	live *registry.Live
	log  *slog.Logger

	mu    sync.Mutex
	graph *route.Graph

	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

type handlerFunc func(r *http.Request) (any, error)

type routeEntry struct {
	method, path string
	h            func(s *server) handlerFunc
}

// routes is the one routes table; /swagger/doc.json documents exactly these paths.
var routes = []routeEntry{
	{http.MethodPost, "/v2/fungible/route", func(s *server) handlerFunc { return s.route }},
	{http.MethodPost, "/op-hook", func(s *server) handlerFunc { return s.opHook }},
	{http.MethodPost, "/v2/fungible/msgs", func(s *server) handlerFunc { return s.msgs }},
	{http.MethodPost, "/v2/fungible/msgs_direct", func(s *server) handlerFunc { return s.msgsDirect }},
	{http.MethodGet, "/v2/info/chains", func(s *server) handlerFunc { return s.chains }},
	{http.MethodGet, "/v2/fungible/assets", func(s *server) handlerFunc { return s.assets }},
	{http.MethodGet, "/v2/info/bridges", func(s *server) handlerFunc { return s.bridges }},
	{http.MethodPost, "/v2/info/balances", func(s *server) handlerFunc { return s.balances }},
	{http.MethodPost, "/v2/fungible/assets_from_source", func(s *server) handlerFunc { return s.assetsFromSource }},
}

//go:embed swagger.json
var swaggerDoc []byte

// New returns the router API handler over the live registry. Metrics are registered on prom
// and served at /metrics from it.
func New(cfg Config, live *registry.Live, log *slog.Logger, prom *prometheus.Registry) http.Handler {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{cfg: cfg, live: live, log: log,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rollgate_router_requests_total",
			Help: "Router API requests by route and HTTP status."}, []string{"route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rollgate_router_request_duration_seconds",
			Help: "Router API request latency by route.", Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .1, .5, 2}}, []string{"route"}),
	}
	mux := http.NewServeMux()
	if prom != nil {
		prom.MustRegister(s.requests, s.duration)
		mux.Handle("GET /metrics", promhttp.HandlerFor(prom, promhttp.HandlerOpts{}))
	}
	for _, rt := range routes {
		mux.Handle(rt.method+" "+rt.path, s.wrap(rt.path, rt.h(s)))
	}
	mux.Handle("GET /swagger/doc.json", s.wrap("/swagger/doc.json", func(*http.Request) (any, error) { return json.RawMessage(swaggerDoc), nil }))
	ui := swaggerui.Handler("/swagger/", "/swagger/doc.json")
	mux.Handle("GET /swagger/", ui)
	mux.Handle("GET /swagger", ui)
	mux.Handle("GET /healthz", s.wrap("/healthz", func(*http.Request) (any, error) { return map[string]string{"status": "ok"}, nil }))
	mux.Handle("/", s.wrap("unmatched", func(r *http.Request) (any, error) {
		for _, rt := range routes {
			if rt.path == r.URL.Path {
				// Wrong method on a known path: still a JSON client error with a reason.
				return nil, apierr.BadRequest("%s %s: use %s", r.Method, r.URL.Path, rt.method).WithDetails("METHOD_NOT_ALLOWED")
			}
		}
		return nil, apierr.NotFoundf("no route for %s %s", r.Method, r.URL.Path).WithDetails("NOT_FOUND")
	}))
	return mux
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (s *server) wrap(name string, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			if p := recover(); p != nil {
				apierr.Write(sw, r, s.log, fmt.Errorf("panic: %v", p))
			}
			s.requests.WithLabelValues(name, strconv.Itoa(sw.status)).Inc()
			s.duration.WithLabelValues(name).Observe(time.Since(start).Seconds())
		}()
		v, err := h(r)
		if err != nil {
			apierr.Write(sw, r, s.log, err)
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			apierr.Write(sw, r, s.log, err)
			return
		}
		sw.Header().Set("Content-Type", "application/json")
		_, _ = sw.Write(append(b, '\n'))
	})
}

// current returns the graph of the current registry snapshot, rebuilding it when the
// registry was refreshed.
func (s *server) current() *route.Graph {
	reg := s.live.Current()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.graph == nil || s.graph.Registry() != reg {
		s.graph = route.Build(reg, s.cfg.Route)
	}
	return s.graph
}

func (s *server) builder(g *route.Graph) msgs.Builder {
	return msgs.Builder{Reg: g.Registry(), Now: s.cfg.Now, IBCTimeout: s.cfg.IBCTimeout, LayerZeroFee: s.cfg.Route.LayerZeroFee}
}

func (s *server) decode(r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apierr.BadRequest("request body exceeds %d bytes", s.cfg.MaxBodyBytes).WithDetails(ReasonBodyTooLarge)
		}
		return apierr.BadRequest("cannot read request body").WithDetails(ReasonInvalidJSON)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return apierr.BadRequest("invalid JSON body: %v", err).WithDetails(ReasonInvalidJSON)
	}
	return nil
}

func (s *server) route(r *http.Request) (any, error) {
	var req route.Request
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	g := s.current()
	rt, err := g.Find(req)
	if err != nil {
		return nil, err
	}
	return rt, nil
}

// OPHookRequest is the /op-hook body. amount_in is a rollgate extension InterwovenKit does not
// send: the hook is an IBC MsgTransfer signed before the deposit, and ICS-20 transfers an
// exact coin (there is no "whatever arrived" amount), so no hook works without it. A request
// without amount_in gets 400 OP_HOOK_AMOUNT_REQUIRED (when the route needs a hook at all)
// whose info says to send the route's amount_in.
type OPHookRequest struct {
	SourceAddress      string `json:"source_address"`
	SourceAssetChainID string `json:"source_asset_chain_id"`
	SourceAssetDenom   string `json:"source_asset_denom"`
	DestAddress        string `json:"dest_address"`
	DestAssetChainID   string `json:"dest_asset_chain_id"`
	DestAssetDenom     string `json:"dest_asset_denom"`
	AmountIn           string `json:"amount_in"`
}

// OPHookResponse is the /op-hook response.
type OPHookResponse struct {
	ChainID string           `json:"chain_id"`
	Hook    []msgs.CosmosMsg `json:"hook"`
}

func (s *server) opHook(r *http.Request) (any, error) {
	var req OPHookRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	g := s.current()
	multi := true
	amount := req.AmountIn
	if amount == "" {
		// Only to learn whether the route needs a hook at all: transfers and deposits take
		// the same path whatever the amount.
		amount = "1"
	}
	rt, err := g.Find(route.Request{AmountIn: amount, SourceAssetChainID: req.SourceAssetChainID, SourceAssetDenom: req.SourceAssetDenom,
		DestAssetChainID: req.DestAssetChainID, DestAssetDenom: req.DestAssetDenom, AllowMultiTx: &multi})
	if err != nil {
		return nil, err
	}
	reg := g.Registry()
	src, dst := reg.Chain(req.SourceAssetChainID), reg.Chain(req.DestAssetChainID)
	if req.SourceAddress == "" || req.DestAddress == "" {
		return nil, apierr.BadRequest("source_address and dest_address are required").WithDetails(route.ReasonMissingField)
	}
	if err := msgs.ValidateAddress(src, req.SourceAddress); err != nil {
		return nil, apierr.BadRequest("source_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	if err := msgs.ValidateAddress(dst, req.DestAddress); err != nil {
		return nil, apierr.BadRequest("dest_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	if !rt.RequiredOPHook {
		return nil, apierr.BadRequest("the route from %s to %s needs no op hook", req.SourceAssetDenom, req.DestAssetDenom).WithDetails(ReasonHookNotNeeded)
	}
	dep := slices.IndexFunc(rt.Operations, func(o route.Operation) bool { return o.OPInitTransfer != nil })
	l2 := reg.Chain(rt.Operations[dep].ToChainID())
	if req.AmountIn == "" {
		return nil, apierr.BadRequest("amount_in is required: the hook is a transfer on %s signed now for the exact amount the deposit will mint there", l2.ID).
			WithDetails(ReasonHookAmountRequired).
			WithInfo("send amount_in: the amount_in of the /v2/fungible/route response this hook is for (the same value later sent to /v2/fungible/msgs)")
	}
	sender, err := msgs.Rebech32(req.SourceAddress, l2.Bech32Prefix)
	if err != nil {
		return nil, apierr.BadRequest("source_address: %v", err).WithDetails(msgs.ReasonInvalidAddress)
	}
	chainID, hook, err := s.builder(g).OPHook(rt.Operations, dep, sender, req.DestAddress, s.cfg.Now())
	if err != nil {
		return nil, err
	}
	return OPHookResponse{ChainID: chainID, Hook: hook}, nil
}

func (s *server) msgs(r *http.Request) (any, error) {
	var req msgs.Request
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	return s.builder(s.current()).Build(req)
}

// MsgsDirectRequest is the /msgs_direct body: a route request plus addresses by chain.
type MsgsDirectRequest struct {
	route.Request
	ChainIDsToAddresses      map[string]string  `json:"chain_ids_to_addresses"`
	SlippageTolerancePercent string             `json:"slippage_tolerance_percent"`
	TimeoutSeconds           string             `json:"timeout_seconds"`
	SignedOPHook             *msgs.SignedOPHook `json:"signed_op_hook"`
}

// MsgsDirectResponse is the /msgs_direct response.
type MsgsDirectResponse struct {
	Msgs          []msgs.Msg  `json:"msgs"`
	Txs           []msgs.Tx   `json:"txs"`
	Route         route.Route `json:"route"`
	MinAmountOut  string      `json:"min_amount_out"`
	EstimatedFees []route.Fee `json:"estimated_fees"`
}

func (s *server) msgsDirect(r *http.Request) (any, error) {
	var req MsgsDirectRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	g := s.current()
	rt, err := g.Find(req.Request)
	if err != nil {
		return nil, err
	}
	addrs := make([]string, len(rt.RequiredChainAddresses))
	for i, c := range rt.RequiredChainAddresses {
		a, ok := req.ChainIDsToAddresses[c]
		if !ok || a == "" {
			return nil, apierr.BadRequest("chain_ids_to_addresses has no address for %s", c).WithDetails(ReasonMissingAddress)
		}
		addrs[i] = a
	}
	out, err := s.builder(g).Build(msgs.Request{SourceAssetDenom: rt.SourceAssetDenom, SourceAssetChainID: rt.SourceAssetChainID,
		DestAssetDenom: rt.DestAssetDenom, DestAssetChainID: rt.DestAssetChainID, AmountIn: rt.AmountIn, AmountOut: rt.AmountOut,
		AddressList: addrs, Operations: rt.Operations, SlippageTolerancePercent: req.SlippageTolerancePercent,
		TimeoutSeconds: req.TimeoutSeconds, SignedOPHook: req.SignedOPHook})
	if err != nil {
		return nil, err
	}
	return MsgsDirectResponse{Msgs: out.Msgs, Txs: out.Txs, Route: *rt, MinAmountOut: out.MinAmountOut, EstimatedFees: out.EstimatedFees}, nil
}

// ---- discovery -----------------------------------------------------------------------------

// Chain is the /v2/info/chains record (Skip Chain + Initia's rpc/rest/evm_fee_asset).
type Chain struct {
	ChainName           string              `json:"chain_name"`
	ChainID             string              `json:"chain_id"`
	PFMEnabled          bool                `json:"pfm_enabled"`
	CosmosModuleSupport CosmosModuleSupport `json:"cosmos_module_support"`
	SupportsMemo        bool                `json:"supports_memo"`
	LogoURI             *string             `json:"logo_uri"`
	Bech32Prefix        string              `json:"bech32_prefix"`
	FeeAssets           []FeeAsset          `json:"fee_assets"`
	ChainType           string              `json:"chain_type"`
	IBCCapabilities     IBCCapabilities     `json:"ibc_capabilities"`
	IsTestnet           bool                `json:"is_testnet"`
	PrettyName          string              `json:"pretty_name"`
	RPC                 string              `json:"rpc,omitempty"`
	REST                string              `json:"rest,omitempty"`
	EVMFeeAsset         *EVMFeeAsset        `json:"evm_fee_asset,omitempty"`
}

// CosmosModuleSupport lists optional Cosmos modules.
type CosmosModuleSupport struct {
	Authz    bool `json:"authz"`
	Feegrant bool `json:"feegrant"`
}

// IBCCapabilities lists IBC middleware capabilities.
type IBCCapabilities struct {
	CosmosPFM       bool `json:"cosmos_pfm"`
	CosmosIBCHooks  bool `json:"cosmos_ibc_hooks"`
	CosmosMemo      bool `json:"cosmos_memo"`
	CosmosAutopilot bool `json:"cosmos_autopilot"`
}

// FeeAsset is a gas token with price tiers.
type FeeAsset struct {
	Denom    string    `json:"denom"`
	GasPrice *GasPrice `json:"gas_price"`
}

// GasPrice is a gas price tier set (decimal strings).
type GasPrice struct {
	Low     string `json:"low"`
	Average string `json:"average"`
	High    string `json:"high"`
}

// EVMFeeAsset describes the native coin of an EVM chain.
type EVMFeeAsset struct {
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
}

func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, apierr.BadRequest("query parameter %s must be a boolean", name).WithDetails("INVALID_PARAMETER")
	}
	return b, nil
}

// chainFilter resolves the chain_ids query (repeated or comma-separated); nil means all.
func chainFilter(reg *registry.Registry, r *http.Request) ([]*registry.Chain, error) {
	var ids []string
	for _, v := range r.URL.Query()["chain_ids"] {
		for _, id := range strings.Split(v, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return reg.Chains, nil
	}
	var out []*registry.Chain
	for _, id := range ids {
		c := reg.Chain(id)
		if c == nil {
			return nil, apierr.NotFoundf("unknown chain %q", id).WithDetails(route.ReasonUnknownChain)
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func (s *server) chains(r *http.Request) (any, error) {
	reg := s.current().Registry()
	includeEVM, err := queryBool(r, "include_evm")
	if err != nil {
		return nil, err
	}
	onlyTestnets, err := queryBool(r, "only_testnets")
	if err != nil {
		return nil, err
	}
	explicit := r.URL.Query().Has("chain_ids")
	sel, err := chainFilter(reg, r)
	if err != nil {
		return nil, err
	}
	out := []Chain{}
	for _, c := range sel {
		if c.Type == registry.ChainTypeEVM && !includeEVM && !explicit {
			continue
		}
		if onlyTestnets && !c.Testnet {
			continue
		}
		out = append(out, renderChain(reg, c))
	}
	return map[string]any{"chains": out}, nil
}

func renderChain(reg *registry.Registry, c *registry.Chain) Chain {
	ch := Chain{ChainName: c.Name, ChainID: c.ID, PFMEnabled: c.PFM, SupportsMemo: c.Memo, Bech32Prefix: c.Bech32Prefix,
		FeeAssets: []FeeAsset{}, ChainType: c.Type, IsTestnet: c.Testnet, PrettyName: c.PrettyName,
		CosmosModuleSupport: CosmosModuleSupport{Authz: c.Authz, Feegrant: c.Feegrant},
		IBCCapabilities:     IBCCapabilities{CosmosPFM: c.PFM, CosmosIBCHooks: c.Hooks, CosmosMemo: c.Memo}}
	if c.LogoURI != "" {
		l := c.LogoURI
		ch.LogoURI = &l
	}
	for _, t := range c.FeeTokens {
		fa := FeeAsset{Denom: t.Denom}
		if t.Average != "" {
			fa.GasPrice = &GasPrice{Low: t.Low, Average: t.Average, High: t.High}
		}
		ch.FeeAssets = append(ch.FeeAssets, fa)
	}
	if len(c.RPC) > 0 {
		ch.RPC = c.RPC[0]
	}
	if len(c.REST) > 0 {
		ch.REST = c.REST[0]
	}
	if c.Type == registry.ChainTypeEVM {
		if len(c.JSONRPC) > 0 {
			ch.RPC = c.JSONRPC[0]
		}
		for _, a := range c.Assets {
			if a.TokenContract == "" && strings.HasSuffix(a.Denom, "-native") {
				ch.EVMFeeAsset = &EVMFeeAsset{Name: a.Name, Symbol: a.Symbol, Decimals: a.Decimals}
			}
		}
	}
	return ch
}

func (s *server) assets(r *http.Request) (any, error) {
	reg := s.current().Registry()
	sel, err := chainFilter(reg, r)
	if err != nil {
		return nil, err
	}
	nativeOnly, err := queryBool(r, "native_only")
	if err != nil {
		return nil, err
	}
	includeEVM, err := queryBool(r, "include_evm_assets")
	if err != nil {
		return nil, err
	}
	explicit := r.URL.Query().Has("chain_ids")
	out := map[string]map[string][]route.Asset{}
	for _, c := range sel {
		if c.Type == registry.ChainTypeEVM && !includeEVM && !explicit {
			continue
		}
		list := []route.Asset{}
		for _, a := range c.Assets {
			if nativeOnly && a.Trace != "" {
				continue
			}
			list = append(list, route.AssetOf(a))
		}
		out[c.ID] = map[string][]route.Asset{"assets": list}
	}
	return map[string]any{"chain_to_assets_map": out}, nil
}

func (s *server) bridges(*http.Request) (any, error) {
	type bridge struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		LogoURI string `json:"logo_uri"`
	}
	return map[string]any{"bridges": []bridge{
		{ID: route.BridgeIBC, Name: "IBC", LogoURI: ""},
		{ID: route.BridgeOPInit, Name: "OPinit", LogoURI: ""},
		{ID: route.BridgeLayerZero, Name: "LayerZero", LogoURI: ""},
	}}, nil
}

// BalancesRequest is the /v2/info/balances body.
type BalancesRequest struct {
	Chains map[string]struct {
		Address string   `json:"address"`
		Denoms  []string `json:"denoms"`
	} `json:"chains"`
}

// DenomBalance is one balance entry.
type DenomBalance struct {
	Amount          string     `json:"amount"`
	Decimals        *int       `json:"decimals,omitempty"`
	FormattedAmount string     `json:"formatted_amount"`
	Price           *string    `json:"price,omitempty"`
	ValueUSD        *string    `json:"value_usd,omitempty"`
	Error           *ErrorInfo `json:"error,omitempty"`
}

// ErrorInfo is a per-entry error.
type ErrorInfo struct {
	Message string `json:"message"`
}

func (s *server) balances(r *http.Request) (any, error) {
	var req BalancesRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	reg := s.current().Registry()
	ids := make([]string, 0, len(req.Chains))
	for id := range req.Chains {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		c := reg.Chain(id)
		if c == nil {
			return nil, apierr.NotFoundf("unknown chain %q", id).WithDetails(route.ReasonUnknownChain)
		}
		if err := msgs.ValidateAddress(c, req.Chains[id].Address); err != nil {
			return nil, apierr.BadRequest("chains.%s.address: %v", id, err).WithDetails(msgs.ReasonInvalidAddress)
		}
	}
	type chainEntry struct {
		Address string                  `json:"address"`
		Denoms  map[string]DenomBalance `json:"denoms"`
	}
	out := map[string]chainEntry{}
	for _, id := range ids {
		c, q := reg.Chain(id), req.Chains[id]
		entry := chainEntry{Address: q.Address, Denoms: map[string]DenomBalance{}}
		var have map[string]string
		var ferr error
		if s.cfg.Balances == nil {
			ferr = errors.New("balances are not configured for this router")
		} else {
			have, ferr = s.cfg.Balances.Balances(r.Context(), c, q.Address)
		}
		denoms := q.Denoms
		if len(denoms) == 0 {
			for d := range have {
				denoms = append(denoms, d)
			}
			slices.Sort(denoms)
		}
		for _, d := range denoms {
			if ferr != nil {
				entry.Denoms[d] = DenomBalance{Amount: "0", FormattedAmount: "0", Error: &ErrorInfo{Message: ferr.Error()}}
				continue
			}
			amt := have[d]
			if amt == "" {
				amt = "0"
			}
			b := DenomBalance{Amount: amt, FormattedAmount: amt}
			if a := c.Asset(d); a != nil {
				dec := a.Decimals
				b.Decimals = &dec
				b.FormattedAmount = formatAmount(amt, dec)
			}
			entry.Denoms[d] = b
		}
		out[id] = entry
	}
	return map[string]any{"chains": out}, nil
}

// formatAmount renders a base-unit amount with the asset's decimals ("1234567", 6 → "1.234567").
func formatAmount(amount string, decimals int) string {
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok || decimals == 0 {
		return amount
	}
	r := new(big.Rat).SetFrac(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil))
	s := r.FloatString(decimals)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// AssetsFromSourceRequest is the /v2/fungible/assets_from_source body.
type AssetsFromSourceRequest struct {
	SourceAssetDenom   string `json:"source_asset_denom"`
	SourceAssetChainID string `json:"source_asset_chain_id"`
	AllowMultiTx       bool   `json:"allow_multi_tx"`
}

func (s *server) assetsFromSource(r *http.Request) (any, error) {
	var req AssetsFromSourceRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	list, err := s.current().Reachable(req.SourceAssetChainID, req.SourceAssetDenom, req.AllowMultiTx)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string][]route.Asset{}
	for _, a := range list {
		m := out[a.ChainID]
		if m == nil {
			m = map[string][]route.Asset{"assets": {}}
			out[a.ChainID] = m
		}
		m["assets"] = append(m["assets"], route.AssetOf(a))
	}
	return map[string]any{"dest_assets": out}, nil
}

// RESTBalances is the BalanceSource over Cosmos REST (`/cosmos/bank/v1beta1/balances`, all
// pages) through the project's cosmosrest client, one client per chain.
type RESTBalances struct {
	Options []httpx.Option

	mu      sync.Mutex
	clients map[string]*cosmosrest.Client
}

// Balances implements BalanceSource for Cosmos chains.
func (b *RESTBalances) Balances(ctx context.Context, c *registry.Chain, address string) (map[string]string, error) {
	if c.Type != registry.ChainTypeCosmos || len(c.REST) == 0 {
		return nil, fmt.Errorf("no Cosmos REST endpoint for %s", c.ID)
	}
	key := strings.Join(c.REST, ",")
	b.mu.Lock()
	cl, ok := b.clients[key]
	if !ok {
		var err error
		if cl, err = cosmosrest.New(key, b.Options...); err != nil {
			b.mu.Unlock()
			return nil, fmt.Errorf("rest client for %s: %w", c.ID, err)
		}
		if b.clients == nil {
			b.clients = map[string]*cosmosrest.Client{}
		}
		b.clients[key] = cl
	}
	b.mu.Unlock()
	coins, err := cl.Balances(ctx, address, 0)
	if err != nil {
		return nil, fmt.Errorf("balances of %s on %s: %w", address, c.ID, err)
	}
	out := make(map[string]string, len(coins))
	for _, x := range coins {
		if _, err := uint256.FromDecimal(x.Amount); err == nil {
			out[x.Denom] = x.Amount
		}
	}
	return out, nil
}
