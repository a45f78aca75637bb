package devnet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/server"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/evm"
	"github.com/rollgate/rollgate/internal/httpapi"
)

// Chain is one running chain of the network.
type Chain struct {
	Spec      ChainSpec
	Endpoints ChainEndpoints

	eng     *engine.Chain
	evm     *evm.Module // nil unless Kind is evm
	modules []sim.Module
	vm      vm
}

// ChainEndpoints are the URLs of one chain.
type ChainEndpoints struct {
	Kind      Kind   `json:"kind"`
	ChainName string `json:"chain_name"`
	RPC       string `json:"rpc"`
	REST      string `json:"rest"`
	JSONRPC   string `json:"json_rpc,omitempty"`
}

// Endpoints maps chain ids to their endpoints (the endpoints.json content).
type Endpoints map[string]ChainEndpoints

// buildChain builds the engine of one chain: its VM, then the bridge modules and the
// extra genesis accounts (bots, users) the network adds.
func buildChain(cfg Config, s ChainSpec, extraModules []sim.Module, extraAccounts []engine.GenesisAccount, log *slog.Logger) (*Chain, error) {
	v := plugVM(s, cfg, extraModules, log)
	cc := engine.Config{
		ChainID: s.ChainID, Kind: s.Kind, Bech32Prefix: s.Prefix, CosmosKeys: s.CosmosKeys,
		BlockInterval: cfg.BlockInterval, Seed: cfg.Seed, GenesisTime: cfg.GenesisTime,
		NumAccounts: cfg.Accounts, FeeDenom: s.FeeDenom, AccountCoins: s.genesisCoins(), ExtraAccounts: extraAccounts,
		Modules: append(append([]sim.Module(nil), v.modules...), extraModules...),
		Bank:    v.bank, Signer: v.signer, Verifier: v.verifier, RetainBlocks: cfg.RetainBlocks,
		Logger: log.With("chain", s.ChainID),
	}
	if v.fundedAtGenesis != nil {
		v.fundedAtGenesis(extraAccounts)
	}
	c, err := engine.New(cc)
	if err != nil {
		return nil, fmt.Errorf("chain %s: %w", s.ChainID, err)
	}
	return &Chain{Spec: s, eng: c, evm: v.evm, modules: cc.Modules, vm: v}, nil
}

// handlers are the chain's servers in port order: CometBFT RPC, Cosmos REST, then the VM's.
func (c *Chain) handlers(log *slog.Logger) []http.Handler {
	hs := []http.Handler{server.NewComet(c.eng, log), server.NewREST(c.eng, c.modules, log)}
	if c.vm.handlers != nil {
		hs = append(hs, c.vm.handlers(c.eng, log)...)
	}
	return hs
}

// listen opens a loopback listener; port 0 picks a free one. Binding does not block, so no
// context can cut it short.
func listen(host string, port int) (net.Listener, error) {
	return new(net.ListenConfig).Listen(context.Background(), "tcp", net.JoinHostPort(host, fmt.Sprint(port)))
}

// port is the port of server j of chain i (0: random).
func (cfg Config) port(i, j int) int {
	if cfg.PortBase <= 0 {
		return 0
	}
	return cfg.PortBase + 10*i + j
}

// serverMethods are the methods a browser's preflight is told every devnet server takes:
// CometBFT RPC and Cosmos REST answer GET and POST, JSON-RPC and the executor POST or GET.
var serverMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost}

// serve runs h on ln until Close, tracked by the network's wait group, behind the CORS
// settings (outside the fault injector, so an injected failure reaches a page's script as
// the failure, not as a CORS error).
func (n *Network) serve(ln net.Listener, h http.Handler, what string) {
	srv := &http.Server{Handler: httpapi.CORSHandler(n.cfg.CORS, serverMethods, h), ReadHeaderTimeout: 10 * time.Second}
	n.servers = append(n.servers, srv)
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			n.log.Error("devnet server stopped", "server", what, "err", err)
		}
	}()
}

// startServers listens on every server of chain i (behind the fault injector) and records
// its endpoints.
func (n *Network) startServers(i int, c *Chain) error {
	hs := c.handlers(n.log)
	urls := make([]string, len(hs))
	for j, h := range hs {
		ln, err := listen(n.cfg.Host, n.cfg.port(i, j))
		if err != nil {
			return fmt.Errorf("listen for %s: %w", c.Spec.ChainID, err)
		}
		n.serve(ln, n.faults.Wrap(h), c.Spec.ChainID)
		urls[j] = "http://" + ln.Addr().String()
	}
	c.Endpoints = ChainEndpoints{Kind: c.Spec.Kind, ChainName: c.Spec.name(), RPC: urls[0], REST: urls[1]}
	if len(urls) > 2 {
		c.Endpoints.JSONRPC = urls[2]
	}
	return nil
}
