// Package devnet runs several simulated chains in one process (by default an Initia-style L1
// and one EVM, one Move and one Wasm rollup), each on its own loopback ports speaking
// CometBFT RPC, Cosmos REST and (EVM) Ethereum JSON-RPC, producing blocks on a timer with
// seeded traffic. It writes endpoints.json and an initia-registry style directory.
package devnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/engine"
	"github.com/rollgate/rollgate/internal/devnet/faults"
	"github.com/rollgate/rollgate/internal/devnet/server"
	"github.com/rollgate/rollgate/internal/devnet/sim"
	"github.com/rollgate/rollgate/internal/devnet/vm/evm"
)

// ChainSpec describes one chain of the network.
type ChainSpec struct {
	ChainID string
	Kind    engine.Kind
	// Name is the registry chain_name; default: the chain id without its "-devnet-N" suffix.
	Name string
	// Metadata is merged into the registry chain.json "metadata" (op_bridge_id, ibc_channels...).
	Metadata map[string]any
}

func (s ChainSpec) name() string {
	if s.Name != "" {
		return s.Name
	}
	n := s.ChainID
	if i := strings.Index(n, "-devnet"); i > 0 {
		n = n[:i]
	}
	return n
}

// Plugins is what the lead wires per chain: extra modules (Move VM, Wasm VM, bridge) and, for
// kinds whose bank is VM-backed, the bank flavour.
type Plugins struct {
	Modules []sim.Module
	Bank    sim.BankFlavor
	// Configure may adjust the engine config last (fee denom, genesis accounts, ...).
	Configure func(*engine.Config)
	// SkipBankTraffic drops the built-in bank traffic of non-EVM chains (when a plugged VM
	// module generates its own bank sends).
	SkipBankTraffic bool
}

// Config configures a network.
type Config struct {
	Chains        []ChainSpec
	Seed          uint64
	BlockInterval time.Duration // default 500ms
	GenesisTime   time.Time     // default: now, truncated to the second
	Host          string        // default 127.0.0.1
	PortBase      int           // 0: random ports; else chain i uses PortBase+10i (rpc), +1 (rest), +2 (json-rpc)
	Accounts      int           // keyed genesis accounts per chain, default 8
	TxsPerBlock   int           // upper bound of the built-in traffic per block (EVM default 4, bank default 2)
	Faults        float64       // share of failing requests (0 = off; adjustable later via Network.Faults())
	FaultSeed     uint64
	FaultHang     time.Duration // default 30s
	FaultKinds    []faults.Kind // default: all (500, hang, close, truncate)
	// DataDir, when set, receives endpoints.json and the registry directory (registry/)
	// once the servers listen.
	DataDir      string
	ManualBlocks bool // no timer: blocks only through Network.ProduceBlock (tests)
	// Plugins returns the modules and bank flavour of a chain; nil gives the built-ins only
	// (EVM module on evm chains, plain bank elsewhere).
	Plugins func(spec ChainSpec) Plugins
}

// DefaultConfig is an L1 and three rollups, one of each kind.
func DefaultConfig() Config {
	return Config{
		Chains: []ChainSpec{
			{ChainID: "initia-devnet-1", Kind: engine.KindL1},
			{ChainID: "minievm-devnet-1", Kind: engine.KindEVM},
			{ChainID: "minimove-devnet-1", Kind: engine.KindMove},
			{ChainID: "miniwasm-devnet-1", Kind: engine.KindWasm},
		},
		Seed:          1,
		BlockInterval: 500 * time.Millisecond,
	}
}

// Chain is one running chain of the network.
type Chain struct {
	Spec      ChainSpec
	Chain     *engine.Chain
	EVM       *evm.Module // nil unless Kind is evm
	Modules   []sim.Module
	Endpoints ChainEndpoints
	servers   []*http.Server
}

// ChainEndpoints are the URLs of one chain.
type ChainEndpoints struct {
	Kind      engine.Kind `json:"kind"`
	ChainName string      `json:"chain_name"`
	RPC       string      `json:"rpc"`
	REST      string      `json:"rest"`
	JSONRPC   string      `json:"json_rpc,omitempty"`
}

// Endpoints maps chain ids to their endpoints (the endpoints.json content).
type Endpoints map[string]ChainEndpoints

// Network is a running devnet.
type Network struct {
	cfg    Config
	log    *slog.Logger
	chains []*Chain
	faults *faults.Injector
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed sync.Once
}

func feeDenom(k engine.Kind) string {
	switch k {
	case engine.KindEVM:
		return "GAS"
	case engine.KindL1:
		return "uinit"
	}
	return "umin"
}

func buildChain(cfg Config, spec ChainSpec, log *slog.Logger) (*Chain, error) {
	fee := feeDenom(spec.Kind)
	big24, _ := new(big.Int).SetString("1000000000000000000000000", 10)
	amt := big24
	if spec.Kind != engine.KindEVM {
		amt = big.NewInt(1_000_000_000_000_000)
	}
	cc := engine.Config{
		ChainID: spec.ChainID, Kind: spec.Kind, BlockInterval: cfg.BlockInterval, Seed: cfg.Seed,
		GenesisTime: cfg.GenesisTime, NumAccounts: cfg.Accounts, FeeDenom: fee,
		AccountCoins: []engine.Coin{{Denom: fee, Amount: amt}, {Denom: "uusdc", Amount: big.NewInt(1_000_000_000_000)}},
		Logger:       log.With("chain", spec.ChainID),
	}
	dc := &Chain{Spec: spec}
	if spec.Kind == engine.KindEVM {
		dc.EVM = evm.New(evm.Config{FeeDenom: fee, GenesisDenoms: []string{"uusdc"}, MaxTxsPerBlock: cfg.TxsPerBlock})
		cc.Modules = append(cc.Modules, dc.EVM)
		cc.Bank = evm.Flavor{}
		cc.Signer, cc.Verifier = dc.EVM.Signer(), dc.EVM.Verifier()
	}
	var p Plugins
	if cfg.Plugins != nil {
		p = cfg.Plugins(spec)
	}
	if spec.Kind != engine.KindEVM && !p.SkipBankTraffic {
		cc.Modules = append(cc.Modules, engine.BankTraffic{Denoms: []string{fee, "uusdc"}, Max: cfg.TxsPerBlock})
	}
	cc.Modules = append(cc.Modules, p.Modules...)
	if p.Bank != nil {
		cc.Bank = p.Bank
	}
	if p.Configure != nil {
		p.Configure(&cc)
	}
	c, err := engine.New(cc)
	if err != nil {
		return nil, fmt.Errorf("chain %s: %w", spec.ChainID, err)
	}
	dc.Chain, dc.Modules = c, cc.Modules
	return dc, nil
}

func listen(host string, port int) (net.Listener, error) {
	return net.Listen("tcp", net.JoinHostPort(host, fmt.Sprint(port)))
}

// Start builds the chains, starts their servers and, once every server listens, block production.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*Network, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if len(cfg.Chains) == 0 {
		cfg.Chains = DefaultConfig().Chains
	}
	if cfg.BlockInterval <= 0 {
		cfg.BlockInterval = 500 * time.Millisecond
	}
	if cfg.GenesisTime.IsZero() {
		cfg.GenesisTime = time.Now().UTC().Truncate(time.Second)
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	seen := map[string]bool{}
	for _, s := range cfg.Chains {
		if s.ChainID == "" || seen[s.ChainID] {
			return nil, fmt.Errorf("chain ids must be unique and non-empty (%q)", s.ChainID)
		}
		seen[s.ChainID] = true
	}
	n := &Network{cfg: cfg, log: log, faults: faults.New(faults.Config{Rate: cfg.Faults, Seed: cfg.FaultSeed, Hang: cfg.FaultHang, Kinds: cfg.FaultKinds})}
	for i, spec := range cfg.Chains {
		dc, err := buildChain(cfg, spec, log)
		if err != nil {
			n.Close()
			return nil, err
		}
		handlers := []http.Handler{server.NewComet(dc.Chain, log), server.NewREST(dc.Chain, dc.Modules, log)}
		if dc.EVM != nil {
			handlers = append(handlers, evm.NewJSONRPC(dc.Chain, dc.EVM, log))
		}
		urls := make([]string, len(handlers))
		for j, h := range handlers {
			port := 0
			if cfg.PortBase > 0 {
				port = cfg.PortBase + 10*i + j
			}
			ln, err := listen(cfg.Host, port)
			if err != nil {
				n.chains = append(n.chains, dc)
				n.Close()
				return nil, fmt.Errorf("listen for %s: %w", spec.ChainID, err)
			}
			srv := &http.Server{Handler: n.faults.Wrap(h), ReadHeaderTimeout: 10 * time.Second}
			dc.servers = append(dc.servers, srv)
			urls[j] = "http://" + ln.Addr().String()
			n.wg.Add(1)
			go func() {
				defer n.wg.Done()
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("devnet server stopped", "chain", spec.ChainID, "err", err)
				}
			}()
		}
		dc.Endpoints = ChainEndpoints{Kind: spec.Kind, ChainName: spec.name(), RPC: urls[0], REST: urls[1]}
		if len(urls) > 2 {
			dc.Endpoints.JSONRPC = urls[2]
		}
		n.chains = append(n.chains, dc)
	}
	if cfg.DataDir != "" {
		if err := n.WriteEndpoints(filepath.Join(cfg.DataDir, "endpoints.json")); err != nil {
			n.Close()
			return nil, err
		}
		if err := n.WriteRegistry(filepath.Join(cfg.DataDir, "registry")); err != nil {
			n.Close()
			return nil, err
		}
	}
	pctx, cancel := context.WithCancel(ctx)
	n.cancel = cancel
	if !cfg.ManualBlocks {
		for _, dc := range n.chains {
			n.wg.Add(1)
			go n.produce(pctx, dc)
		}
	}
	log.Info("devnet started", "chains", len(n.chains))
	return n, nil
}

func (n *Network) produce(ctx context.Context, dc *Chain) {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.BlockInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := dc.Chain.ProduceBlock(); err != nil {
				n.log.Error("block production failed", "chain", dc.Spec.ChainID, "err", err)
			}
		}
	}
}

// ProduceBlock steps every chain by one block (tests; with ManualBlocks).
func (n *Network) ProduceBlock() error {
	for _, dc := range n.chains {
		if _, err := dc.Chain.ProduceBlock(); err != nil {
			return fmt.Errorf("%s: %w", dc.Spec.ChainID, err)
		}
	}
	return nil
}

// ProduceBlocks steps every chain by n blocks.
func (n *Network) ProduceBlocks(count int) error {
	for i := 0; i < count; i++ {
		if err := n.ProduceBlock(); err != nil {
			return err
		}
	}
	return nil
}

// ParseChains reads "id:kind,id:kind" (kinds l1, evm, move, wasm, cosmos), the form a
// command-line flag takes.
func ParseChains(s string) ([]ChainSpec, error) {
	var out []ChainSpec
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, kind, ok := strings.Cut(part, ":")
		if !ok || id == "" {
			return nil, fmt.Errorf("chain %q: want <chain-id>:<kind>", part)
		}
		switch k := engine.Kind(kind); k {
		case engine.KindL1, engine.KindEVM, engine.KindMove, engine.KindWasm, engine.KindCosmos:
			out = append(out, ChainSpec{ChainID: id, Kind: k})
		default:
			return nil, fmt.Errorf("chain %q: unknown kind %q", part, kind)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no chains")
	}
	return out, nil
}

// Chains returns the running chains in config order.
func (n *Network) Chains() []*Chain { return append([]*Chain(nil), n.chains...) }

// Chain returns a chain by id.
func (n *Network) Chain(id string) (*Chain, bool) {
	for _, c := range n.chains {
		if c.Spec.ChainID == id {
			return c, true
		}
	}
	return nil, false
}

// Faults is the network's fault injector (turn on/off, change the rate at run time).
func (n *Network) Faults() *faults.Injector { return n.faults }

// Endpoints lists every URL of every chain.
func (n *Network) Endpoints() Endpoints {
	out := Endpoints{}
	for _, c := range n.chains {
		out[c.Spec.ChainID] = c.Endpoints
	}
	return out
}

// Close stops block production and the servers.
func (n *Network) Close() error {
	n.closed.Do(func() {
		if n.cancel != nil {
			n.cancel()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		for _, c := range n.chains {
			for _, s := range c.servers {
				if err := s.Shutdown(ctx); err != nil {
					_ = s.Close()
				}
			}
		}
		n.wg.Wait()
	})
	return nil
}
