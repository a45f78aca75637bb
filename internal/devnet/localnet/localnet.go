// Package localnet wires the full default devnet: the engine's chains (an Initia-style L1
// with the Move VM, an EVM, a Move and a Wasm rollup, and an external Cosmos chain), the
// OPinit bridges L1 ↔ every rollup and the IBC channels L1 ↔ every other chain, the hook
// runners, the relayer/executor driven after every block, the rollups' executor APIs, and
// a registry directory the router loads (including registry-only LayerZero peers).
//
// It is what `rollgate devnet` and `rollgate up` start: Start, then Endpoints and
// WriteRegistry; tests use ManualBlocks and ProduceBlock.
package localnet

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

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/bridge"
	"github.com/rollgate/rollgate/internal/devnet/bridge/ibc"
	"github.com/rollgate/rollgate/internal/devnet/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/engine"
	"github.com/rollgate/rollgate/internal/devnet/faults"
	"github.com/rollgate/rollgate/internal/devnet/sim"
	"github.com/rollgate/rollgate/internal/devnet/vm/move"
	"github.com/rollgate/rollgate/internal/devnet/vm/wasm"
)

// ChainSpec describes one chain of the local network.
type ChainSpec struct {
	ChainID string
	Kind    engine.Kind // l1, evm, move, wasm or cosmos
	// Name is the registry chain_name (default: the chain id without "-devnet-N").
	Name string
	// Prefix is the bech32 account prefix (default "init"; "cosmos" suits an external chain).
	Prefix string
	// FeeDenom overrides the engine's fee denom (uinit on the L1, GAS on EVM, umin on the
	// other rollups); external chains default to "uatom".
	FeeDenom string
	// NativeDenoms are the denoms the chain originates for the bridge's registry traces
	// and traffic (default: uinit on the L1, uusdc on rollups, the fee denom elsewhere).
	NativeDenoms []string
	// CosmosKeys makes the chain sign with plain secp256k1 keys (default for external
	// chains; Initia chains use eth_secp256k1).
	CosmosKeys bool
}

// Config configures a local network.
type Config struct {
	Chains        []ChainSpec
	Seed          uint64
	BlockInterval time.Duration // default 500ms; also the relayer's step interval
	GenesisTime   time.Time     // default: now, truncated to the second
	Host          string        // default 127.0.0.1
	// PortBase: 0 gives random ports; else chain i uses PortBase+10i (rpc), +1 (rest),
	// +2 (json-rpc, EVM only) and +3 (the rollup's OPinit executor API).
	PortBase    int
	Accounts    int // keyed genesis accounts per chain (engine default 8)
	TxsPerBlock int // bound of the engine's built-in traffic
	Faults      float64
	FaultSeed   uint64
	FaultHang   time.Duration
	FaultKinds  []faults.Kind
	// DataDir, when set, receives endpoints.json and registry/ once everything listens.
	DataDir      string
	ManualBlocks bool // no timers: blocks (and relayer steps) only through ProduceBlock
	// BridgeTraffic is the bridge modules' seeded traffic rate (per block, the chance of
	// one IBC transfer per chain, one deposit on the L1 and one withdrawal per rollup).
	BridgeTraffic float64
	// FinalizationPeriod of every OPinit bridge (0: withdrawals can be claimed at once).
	FinalizationPeriod time.Duration
	// Users is the number of funded user accounts per chain that no built-in traffic
	// touches (default 4): clients sign with them (UserKey) and see exact balances.
	Users int
	// LayerZero adds the registry-only LayerZero EVM peer (ethereum-devnet) and the L1's
	// OFT asset, so the router has LayerZero routes. No chain is simulated for it.
	LayerZero bool
}

// DefaultConfig is the full default devnet: the L1, one rollup of each VM and an external
// Cosmos chain, bridge traffic on at a low rate, LayerZero peer in the registry.
func DefaultConfig() Config {
	return Config{
		Chains: []ChainSpec{
			{ChainID: "initia-devnet-1", Kind: engine.KindL1},
			{ChainID: "minievm-devnet-1", Kind: engine.KindEVM},
			{ChainID: "minimove-devnet-1", Kind: engine.KindMove},
			{ChainID: "miniwasm-devnet-1", Kind: engine.KindWasm},
			{ChainID: "cosmoshub-devnet-1", Kind: engine.KindCosmos, Prefix: "cosmos"},
		},
		Seed:          1,
		BlockInterval: 500 * time.Millisecond,
		BridgeTraffic: 0.15,
		LayerZero:     true,
	}
}

// ParseChains reads the "id:kind,id:kind" form of a command-line flag (kinds l1, evm, move,
// wasm, cosmos); cosmos chains get the "cosmos" prefix, the others Initia's defaults.
func ParseChains(s string) ([]ChainSpec, error) {
	specs, err := devnet.ParseChains(s)
	if err != nil {
		return nil, err
	}
	out := make([]ChainSpec, 0, len(specs))
	for _, sp := range specs {
		cs := ChainSpec{ChainID: sp.ChainID, Kind: sp.Kind}
		if sp.Kind == engine.KindCosmos {
			cs.Prefix = "cosmos"
		}
		out = append(out, cs)
	}
	return out, nil
}

// withDefaults fills a spec's derived fields.
func (s ChainSpec) withDefaults() ChainSpec {
	if s.Prefix == "" {
		s.Prefix = "init"
	}
	if s.Kind == engine.KindCosmos {
		s.CosmosKeys = true
		if s.FeeDenom == "" {
			s.FeeDenom = "uatom"
		}
	}
	if s.FeeDenom == "" {
		switch s.Kind {
		case engine.KindL1:
			s.FeeDenom = "uinit"
		case engine.KindEVM:
			s.FeeDenom = "GAS"
		default:
			s.FeeDenom = "umin"
		}
	}
	if len(s.NativeDenoms) == 0 {
		switch s.Kind {
		case engine.KindL1:
			s.NativeDenoms = []string{s.FeeDenom}
		case engine.KindEVM, engine.KindMove, engine.KindWasm:
			s.NativeDenoms = []string{"uusdc"}
		default:
			s.NativeDenoms = []string{s.FeeDenom}
		}
	}
	return s
}

// name is the registry chain_name, derived as the engine derives it.
func (s ChainSpec) name() string {
	if s.Name != "" {
		return s.Name
	}
	if i := strings.Index(s.ChainID, "-devnet"); i > 0 {
		return s.ChainID[:i]
	}
	return s.ChainID
}

func isRollup(k engine.Kind) bool {
	return k == engine.KindEVM || k == engine.KindMove || k == engine.KindWasm
}

// Network is a running local network.
type Network struct {
	cfg     Config
	log     *slog.Logger
	specs   map[string]ChainSpec
	order   []string
	devnet  *devnet.Network
	wiring  *bridge.Network
	relayer *relayer.Relayer
	execURL map[string]string // rollup chain id → executor API URL
	servers []*http.Server

	mu     sync.Mutex // serialises relayer steps (and manual ProduceBlock) with its readers
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed sync.Once
}

// Start builds and starts the network. With ManualBlocks nothing moves until ProduceBlock;
// otherwise every chain produces blocks on its timer and the relayer steps on its own
// timer until ctx ends or Close is called.
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
		// Fixed here (not left to the engine) so every chain shares the same clock.
		cfg.GenesisTime = time.Now().UTC().Truncate(time.Second)
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Users <= 0 {
		cfg.Users = 4
	}
	n := &Network{cfg: cfg, log: log, specs: map[string]ChainSpec{}, execURL: map[string]string{}}
	for i := range cfg.Chains {
		s := cfg.Chains[i].withDefaults()
		cfg.Chains[i] = s
		n.specs[s.ChainID] = s
		n.order = append(n.order, s.ChainID)
	}

	relInit, exInit, err := bridge.BotKeys(cfg.Seed, false)
	if err != nil {
		return nil, err
	}
	relCos, exCos, err := bridge.BotKeys(cfg.Seed, true)
	if err != nil {
		return nil, err
	}
	bots := func(s ChainSpec) (*engine.Key, *engine.Key) {
		if s.CosmosKeys {
			return relCos, exCos
		}
		return relInit, exInit
	}

	// Executor API listeners first: their URLs go into the rollups' registry metadata.
	execLn := map[string]net.Listener{}
	closeListeners := func() {
		for _, ln := range execLn {
			_ = ln.Close()
		}
	}
	for i, s := range cfg.Chains {
		if !isRollup(s.Kind) {
			continue
		}
		port := 0
		if cfg.PortBase > 0 {
			port = cfg.PortBase + 10*i + 3
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(port)))
		if err != nil {
			closeListeners()
			return nil, fmt.Errorf("executor api for %s: %w", s.ChainID, err)
		}
		execLn[s.ChainID] = ln
		n.execURL[s.ChainID] = "http://" + ln.Addr().String()
	}

	// 1. bridge wiring
	var bspecs []bridge.ChainSpec
	runners := map[string]*bridge.HookRunner{}
	ibcHooks := map[string]ibc.HookExecutor{}
	depHooks := map[string]opinit.DepositHookExecutor{}
	for _, s := range cfg.Chains {
		bs := bridge.ChainSpec{ChainID: s.ChainID, Kind: string(s.Kind), Prefix: s.Prefix, ChainName: s.name(), NativeDenoms: s.NativeDenoms}
		if isRollup(s.Kind) {
			_, ex := bots(s)
			bs.Executor = engine.Bech32(s.Prefix, ex.Address())
		}
		bspecs = append(bspecs, bs)
		if s.Kind == engine.KindCosmos {
			continue // an external chain runs no ibc-hooks
		}
		r := bridge.NewHookRunner(s.ChainID)
		runners[s.ChainID] = r
		ibcHooks[s.ChainID] = r
		if isRollup(s.Kind) {
			depHooks[s.ChainID] = r
		}
	}
	wd := opinit.ChildWithdrawals(func(id uint64) (sim.Query, error) {
		for _, cm := range n.wiring.Chains {
			if cm.BridgeID == id {
				c, ok := n.devnet.Chain(cm.Spec.ChainID)
				if !ok {
					break
				}
				return c.Chain.Query(c.Chain.Height())
			}
		}
		return nil, fmt.Errorf("no rollup for bridge %d", id)
	})
	n.wiring, err = bridge.Wire(bspecs, bridge.Options{IBCHooks: ibcHooks, DepositHooks: depHooks, Withdrawals: wd,
		FinalizationPeriod: cfg.FinalizationPeriod, TrafficRate: cfg.BridgeTraffic})
	if err != nil {
		closeListeners()
		return nil, err
	}

	// 2. engine configuration: VMs, bank flavours, bridge modules, bot accounts, metadata
	dcfg := devnet.Config{Seed: cfg.Seed, BlockInterval: cfg.BlockInterval, GenesisTime: cfg.GenesisTime,
		Host: cfg.Host, PortBase: cfg.PortBase, Accounts: cfg.Accounts, TxsPerBlock: cfg.TxsPerBlock,
		Faults: cfg.Faults, FaultSeed: cfg.FaultSeed, FaultHang: cfg.FaultHang, FaultKinds: cfg.FaultKinds,
		ManualBlocks: cfg.ManualBlocks}
	for _, s := range cfg.Chains {
		cm, _ := n.wiring.Chain(s.ChainID)
		meta := cm.Registry.Metadata()
		if u, ok := n.execURL[s.ChainID]; ok {
			meta["executor_uri"] = u
		}
		if s.Kind == engine.KindL1 && cfg.LayerZero {
			meta["layerzero"] = map[string]any{"endpoint_id": l1LZEndpoint}
		}
		dcfg.Chains = append(dcfg.Chains, devnet.ChainSpec{ChainID: s.ChainID, Kind: s.Kind, Name: s.Name, Metadata: meta})
	}
	dcfg.Plugins = func(ds devnet.ChainSpec) devnet.Plugins {
		s := n.specs[ds.ChainID]
		cm, _ := n.wiring.Chain(ds.ChainID)
		rel, ex := bots(s)
		p := devnet.Plugins{}
		var moveFlavor *move.BankFlavor
		switch s.Kind {
		case engine.KindL1:
			mod := move.New(move.WithBaseDenom(s.FeeDenom), move.WithGenesisCoins("uusdc"), move.WithLogger(log))
			moveFlavor = mod.BankFlavor()
			p.Modules, p.Bank, p.SkipBankTraffic = []sim.Module{mod}, moveFlavor, true
		case engine.KindMove:
			mod := move.New(move.WithGenesisCoins("uusdc"), move.WithLogger(log))
			moveFlavor = mod.BankFlavor()
			p.Modules, p.Bank, p.SkipBankTraffic = []sim.Module{mod}, moveFlavor, true
		case engine.KindWasm:
			p.Modules, p.Bank, p.SkipBankTraffic = []sim.Module{wasm.New(wasm.WithLogger(log))}, wasm.BankFlavor{}, true
		case engine.KindCosmos:
			p.SkipBankTraffic = true
			p.Modules = []sim.Module{engine.BankTraffic{Denoms: []string{s.FeeDenom}, Max: cfg.TxsPerBlock}}
		}
		p.Modules = append(p.Modules, cm.Modules()...)
		botAccs := bridge.BotAccounts(s.FeeDenom, rel, ex)
		userAccs, err := userAccounts(cfg.Seed, cfg.Users, s)
		if err != nil {
			log.Error("user accounts", "chain", s.ChainID, "err", err)
		}
		if moveFlavor != nil {
			// Funded at genesis without a flavour call: their primary stores exist.
			for _, a := range append(append([]engine.GenesisAccount(nil), botAccs...), userAccs...) {
				for _, c := range a.Coins {
					moveFlavor.NoteStore(a.Address, c.Denom)
				}
			}
		}
		p.Configure = func(c *engine.Config) {
			c.Bech32Prefix = s.Prefix
			c.CosmosKeys = s.CosmosKeys
			if c.FeeDenom != s.FeeDenom {
				// The engine funded its own fee denom: fund this one instead (an external
				// chain keeps only its own token; Initia chains keep uusdc too).
				old := c.FeeDenom
				c.FeeDenom = s.FeeDenom
				coins := []engine.Coin{{Denom: s.FeeDenom, Amount: big.NewInt(1_000_000_000_000_000)}}
				for _, co := range c.AccountCoins {
					if co.Denom != old && co.Denom != s.FeeDenom && s.Kind != engine.KindCosmos {
						coins = append(coins, co)
					}
				}
				c.AccountCoins = coins
			}
			c.ExtraAccounts = append(c.ExtraAccounts, botAccs...)
			c.ExtraAccounts = append(c.ExtraAccounts, userAccs...)
		}
		return p
	}
	n.devnet, err = devnet.Start(ctx, dcfg, log)
	if err != nil {
		closeListeners()
		return nil, err
	}
	for id, r := range runners {
		c, _ := n.devnet.Chain(id)
		r.AddModules(c.Modules...)
	}

	// 3. relayer and executor
	var eps []relayer.Endpoint
	for _, id := range n.order {
		s := n.specs[id]
		c, _ := n.devnet.Chain(id)
		rel, ex := bots(s)
		ep := relayer.Endpoint{Chain: relayer.NewEngineChain(c.Chain, rel, ex), Relayer: engine.Bech32(s.Prefix, rel.Address())}
		if isRollup(s.Kind) {
			ep.Executor = engine.Bech32(s.Prefix, ex.Address())
		}
		eps = append(eps, ep)
	}
	rcfg := n.wiring.RelayerConfig(eps)
	rcfg.Logger = log.With("component", "relayer")
	n.relayer, err = relayer.New(rcfg)
	if err != nil {
		closeListeners()
		n.devnet.Close()
		return nil, err
	}

	// 4. executor APIs
	for id, ln := range execLn {
		cm, _ := n.wiring.Chain(id)
		c, _ := n.devnet.Chain(id)
		srv := &http.Server{Handler: opinit.ExecutorAPI(cm.BridgeID, func() (sim.Query, error) { return c.Chain.Query(c.Chain.Height()) }),
			ReadHeaderTimeout: 10 * time.Second}
		n.servers = append(n.servers, srv)
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("executor api stopped", "chain", id, "err", err)
			}
		}()
	}

	if cfg.DataDir != "" {
		if err := n.devnet.WriteEndpoints(filepath.Join(cfg.DataDir, "endpoints.json")); err != nil {
			n.Close()
			return nil, err
		}
		if err := n.WriteRegistry(filepath.Join(cfg.DataDir, "registry")); err != nil {
			n.Close()
			return nil, err
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	n.cancel = cancel
	if !cfg.ManualBlocks {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			n.relayer.Run(rctx, cfg.BlockInterval)
		}()
	}
	log.Info("localnet started", "chains", len(n.order), "manual", cfg.ManualBlocks)
	return n, nil
}

// RelayerStats are the relayer's and executor's counters (safe while the network runs).
func (n *Network) RelayerStats() relayer.Stats { return n.relayer.Stats() }

// RelayerPending reports the packets, acknowledgements and deposits awaiting delivery (safe
// while the network runs).
func (n *Network) RelayerPending() (packets, acks, deposits int) { return n.relayer.Pending() }

// Devnet is the engine network (chains, faults, endpoints).
func (n *Network) Devnet() *devnet.Network { return n.devnet }

// Relayer is the IBC relayer and OPinit executor serving the network.
func (n *Network) Relayer() *relayer.Relayer { return n.relayer }

// Bridge is the bridge wiring (channels, bridge ids, registry metadata per chain).
func (n *Network) Bridge() *bridge.Network { return n.wiring }

// Spec returns a chain's spec with defaults applied.
func (n *Network) Spec(chainID string) (ChainSpec, bool) {
	s, ok := n.specs[chainID]
	return s, ok
}

// ChainIDs lists the simulated chains in config order.
func (n *Network) ChainIDs() []string { return append([]string(nil), n.order...) }

// Endpoints lists every URL of every simulated chain (the endpoints.json content).
func (n *Network) Endpoints() devnet.Endpoints { return n.devnet.Endpoints() }

// ExecutorURL is the OPinit executor API of a rollup ("" for other chains).
func (n *Network) ExecutorURL(chainID string) string { return n.execURL[chainID] }

// ProduceBlock produces one block on every chain, then lets the relayer and executor
// submit what those blocks call for (their txs land in the next block). ManualBlocks only.
func (n *Network) ProduceBlock(ctx context.Context) error {
	if !n.cfg.ManualBlocks {
		return errors.New("localnet: ProduceBlock needs ManualBlocks")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if err := n.devnet.ProduceBlock(); err != nil {
		return err
	}
	if err := n.relayer.Step(ctx); err != nil {
		return fmt.Errorf("relayer: %w", err)
	}
	return nil
}

// ProduceBlocks calls ProduceBlock count times.
func (n *Network) ProduceBlocks(ctx context.Context, count int) error {
	for range count {
		if err := n.ProduceBlock(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Close stops the relayer, block production and every server.
func (n *Network) Close() error {
	n.closed.Do(func() {
		if n.cancel != nil {
			n.cancel()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		for _, s := range n.servers {
			if err := s.Shutdown(ctx); err != nil {
				_ = s.Close()
			}
		}
		if n.devnet != nil {
			_ = n.devnet.Close()
		}
		n.wg.Wait()
	})
	return nil
}
