package devnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/chain/registryfile"
	"github.com/rollgate/rollgate/internal/devnet/internal/oracle"
	"github.com/rollgate/rollgate/internal/testutil/faults"
	"github.com/rollgate/rollgate/internal/tick"
)

// Network is a running devnet.
type Network struct {
	cfg     Config
	log     *slog.Logger
	chains  []*Chain // config order
	faults  *faults.Injector
	bridges *bridges // nil unless Config.Bridges
	oracle  *oracle.Book
	lz      *lzParts // nil unless Config.LayerZero
	servers []*http.Server

	mu     sync.Mutex // serialises manual ProduceBlock (blocks, then the relayer's step)
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed sync.Once
}

// Start builds the chains (and with Config.Bridges the bridges between them), starts their
// servers and, unless ManualBlocks, block production on every chain's timer and the
// relayer on its own, until ctx ends or Close is called.
func Start(ctx context.Context, cfg Config, log *slog.Logger) (*Network, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	n := &Network{cfg: cfg, log: log,
		faults: faults.New(faults.Config{Rate: cfg.Faults, Seed: cfg.FaultSeed, Hang: cfg.FaultHang, Kinds: cfg.FaultKinds})}
	if err := n.build(); err != nil {
		return nil, err
	}
	if err := n.listen(); err != nil {
		_ = n.Close()
		return nil, err
	}
	if cfg.DataDir != "" {
		if err := n.WriteEndpoints(filepath.Join(cfg.DataDir, "endpoints.json")); err != nil {
			_ = n.Close()
			return nil, err
		}
		if err := n.WriteRegistry(filepath.Join(cfg.DataDir, "registry")); err != nil {
			_ = n.Close()
			return nil, err
		}
	}
	pctx, cancel := context.WithCancel(ctx)
	n.cancel = cancel
	if !cfg.ManualBlocks {
		for _, c := range n.chains {
			n.wg.Add(1)
			go n.produce(pctx, c)
		}
		if n.bridges != nil {
			n.wg.Add(1)
			go func() {
				defer n.wg.Done()
				n.bridges.relayer.Run(pctx, cfg.BlockInterval)
			}()
		}
		if n.lz != nil {
			n.wg.Add(1)
			go n.runLayerZero(pctx)
		}
	}
	log.Info("devnet started", "chains", len(n.chains), "bridges", cfg.Bridges, "manual", cfg.ManualBlocks)
	return n, nil
}

// build builds every chain's engine, wiring the bridges first when they are on (their
// modules and bot accounts are part of each chain's genesis).
func (n *Network) build() error {
	book, err := oracle.NewBook(n.cfg.Seed, n.cfg.GenesisTime, n.cfg.BlockInterval, oracle.DefaultPairs())
	if err != nil {
		return err
	}
	n.oracle = book
	if n.cfg.Bridges {
		b, err := wireBridges(n)
		if err != nil {
			return err
		}
		n.bridges = b
	}
	for _, s := range n.cfg.Chains {
		users, err := userAccounts(n.cfg.Seed, n.cfg.Users, s)
		if err != nil {
			return fmt.Errorf("user accounts of %s: %w", s.ChainID, err)
		}
		tests, err := testAccounts(n.cfg.TestAccounts, s)
		if err != nil {
			return fmt.Errorf("test accounts of %s: %w", s.ChainID, err)
		}
		mods, accs := n.bridges.chainParts(s)
		if m := n.oracleModule(s.Kind); m != nil {
			mods = append(mods, m)
		}
		lzMods, lzAccs := n.lzChainParts(s)
		mods, accs = append(mods, lzMods...), append(accs, lzAccs...)
		for i := range tests {
			tests[i].Coins = append(tests[i].Coins, n.cfg.lzTestCoins(s)...)
		}
		c, err := buildChain(n.cfg, s, mods, append(append(accs, users...), tests...), n.log)
		if err != nil {
			return err
		}
		n.chains = append(n.chains, c)
	}
	if err := n.buildLayerZero(); err != nil {
		return err
	}
	if n.bridges != nil {
		return n.bridges.start(n)
	}
	return nil
}

// listen starts every server: each chain's, then the rollups' executor APIs.
func (n *Network) listen() error {
	for i, c := range n.chains {
		if err := n.startServers(i, c); err != nil {
			return err
		}
	}
	if err := n.serveEthereum(); err != nil {
		return err
	}
	if n.bridges != nil {
		return n.bridges.serveExecutorAPIs(n)
	}
	return nil
}

func (n *Network) produce(ctx context.Context, c *Chain) {
	defer n.wg.Done()
	tick.Every(ctx, n.cfg.BlockInterval, func(time.Time) {
		if _, err := c.eng.ProduceBlock(); err != nil {
			n.log.Error("block production failed", "chain", c.Spec.ChainID, "err", err)
		}
	})
}

// ProduceBlock produces one block on every chain, then lets the relayer and executor
// submit what those blocks call for (their txs land in the next block). ManualBlocks only.
func (n *Network) ProduceBlock(ctx context.Context) error {
	if !n.cfg.ManualBlocks {
		return errors.New("devnet: ProduceBlock needs ManualBlocks")
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range n.chains {
		if _, err := c.eng.ProduceBlock(); err != nil {
			return fmt.Errorf("%s: %w", c.Spec.ChainID, err)
		}
	}
	if n.lz != nil {
		n.produceEthereum()
	}
	if n.bridges != nil {
		if err := n.bridges.relayer.Step(ctx); err != nil {
			return fmt.Errorf("relayer: %w", err)
		}
	}
	if n.lz != nil {
		if err := n.lz.relayer.Step(ctx); err != nil {
			return fmt.Errorf("layerzero: %w", err)
		}
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

// ChainIDs lists the chains in config order.
func (n *Network) ChainIDs() []string {
	out := make([]string, len(n.chains))
	for i, c := range n.chains {
		out[i] = c.Spec.ChainID
	}
	return out
}

// Spec returns a chain's spec with defaults applied.
func (n *Network) Spec(chainID string) (ChainSpec, bool) {
	c, ok := n.Chain(chainID)
	if !ok {
		return ChainSpec{}, false
	}
	return c.Spec, true
}

// Faults is the network's fault injector (turn on/off, change the rate at run time).
func (n *Network) Faults() *faults.Injector { return n.faults }

// Endpoints lists every URL of every chain (the endpoints.json content).
func (n *Network) Endpoints() Endpoints {
	out := Endpoints{}
	for _, c := range n.chains {
		out[c.Spec.ChainID] = c.Endpoints
	}
	if n.lz != nil {
		out[lzChainID] = ChainEndpoints{Kind: KindEthereum, ChainName: lzChainName, JSONRPC: n.lz.eth.url}
	}
	return out
}

// WriteEndpoints writes endpoints.json.
func (n *Network) WriteEndpoints(path string) error {
	return registryfile.WriteJSON(path, n.Endpoints())
}

// ExecutorURL is the OPinit executor API of a rollup ("" for other chains or without
// bridges).
func (n *Network) ExecutorURL(chainID string) string {
	if n.bridges == nil {
		return ""
	}
	return n.bridges.execURL[chainID]
}

// RelayerStats are the relayer's and executor's counters (safe while the network runs;
// zero without bridges).
func (n *Network) RelayerStats() RelayerStats {
	if n.bridges == nil {
		return RelayerStats{}
	}
	st := n.bridges.relayer.Stats()
	return RelayerStats{RecvSubmitted: st.RecvSubmitted, AcksSubmitted: st.AcksSubmitted, TimeoutsSubmitted: st.TimeoutsSubmitted, DepositsSubmitted: st.DepositsSubmitted}
}

// RelayerStats counts what the relayer and executor submitted: packet receives,
// acknowledgements, timeouts and OPinit deposits.
type RelayerStats struct {
	RecvSubmitted, AcksSubmitted, TimeoutsSubmitted, DepositsSubmitted int
}

// RelayerPending reports the packets, acknowledgements and deposits awaiting delivery (safe
// while the network runs).
func (n *Network) RelayerPending() (packets, acks, deposits int) {
	if n.bridges == nil {
		return 0, 0, 0
	}
	return n.bridges.relayer.Pending()
}

// Close stops block production, the relayer and every server.
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
		n.wg.Wait()
	})
	return nil
}
