package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// upEndpoints is the endpoints.json `rollgate up` writes: every chain's URLs with the URL of
// the indexer following it, and the router's URL.
type upEndpoints struct {
	Chains map[string]upChain `json:"chains"`
	Router string             `json:"router"`
	// Registry is the URL of the registry served in InterwovenKit's shape (its registryUrl).
	Registry string `json:"registry"`
	// Portfolio is InterwovenKit's minityUrl: the portfolio across the chains in Minity's
	// shapes, served under /minity by every indexer URL (the L1's given).
	Portfolio string      `json:"portfolio,omitempty"`
	Accounts  *upAccounts `json:"accounts,omitempty"`
	// Ethereum is the LayerZero Ethereum chain: its JSON-RPC, contracts and Anvil's accounts.
	Ethereum *upEthereum `json:"ethereum,omitempty"`
}

// upEthereum is the Ethereum chain as a wallet or script needs it.
type upEthereum struct {
	ChainID    string                `json:"chain_id"`
	ChainName  string                `json:"chain_name"`
	EVMChainID uint64                `json:"evm_chain_id"`
	JSONRPC    string                `json:"json_rpc"`
	USDT       string                `json:"usdt"`
	OFTAdapter string                `json:"oft_adapter"`
	Endpoint   string                `json:"layerzero_endpoint"`
	EndpointID uint32                `json:"layerzero_eid"`
	Accounts   []devnet.AnvilAccount `json:"accounts"`
}

// upAccounts are the funded test accounts a wallet developer can import.
type upAccounts struct {
	Mnemonic string               `json:"mnemonic"`
	Note     string               `json:"note"`
	List     []devnet.TestAccount `json:"list"`
}

type upChain struct {
	devnet.ChainEndpoints
	Indexer string `json:"indexer,omitempty"`
}

func runUp(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "up")
	var d devnetFlags
	var lg logging
	var dataDir, host, pprofAddr string
	var indexerBase, routerPort, registryPort, indexRetain int
	d.register(f)
	lg.register(f)
	f.String(&dataDir, "data-dir", ".rollgate", "state directory: devnet registry, one SQLite store per rollup, endpoints.json", "ROLLGATE_DATA_DIR")
	f.String(&host, "listen-host", "127.0.0.1", "address the indexers and the router listen on", "ROLLGATE_LISTEN_HOST")
	f.Int(&indexerBase, "indexer-port-base", 8080, "indexer i listens on base+i, the rollups by chain id, then the L1 (0: random ports)", "ROLLGATE_INDEXER_PORT_BASE")
	f.Int(&routerPort, "router-port", 8090, "router port (0: random)", "ROLLGATE_ROUTER_PORT")
	f.Int(&registryPort, "registry-port", 8091, "port serving the devnet's registry to browser wallets: chains.json, profiles.json, assetlists (InterwovenKit's registryUrl; 0: random)", "ROLLGATE_REGISTRY_PORT")
	f.Int(&indexRetain, "indexer-retain-heights", -1, "heights each indexer keeps, pruning older ones (-1: as many as --retain-blocks; 0: keep all)", "ROLLGATE_INDEXER_RETAIN_HEIGHTS")
	f.String(&pprofAddr, "pprof", "", "host:port serving /debug/pprof/ for heap and goroutine profiles (scripts/soak); empty: off", "ROLLGATE_PPROF")
	if err := f.parse(args); err != nil {
		return err
	}
	devDir := filepath.Join(dataDir, "devnet")
	cfg, err := d.config(devDir)
	if err != nil {
		return err
	}
	if indexRetain < 0 {
		// The chains answer nothing older than their retained blocks, so an index of more
		// would only grow: the indexers keep what the devnet keeps.
		indexRetain = cfg.RetainBlocks
	}
	// A browser wallet calls the chains as it calls the indexers and the router: the same
	// CORS settings on all of them.
	cfg.CORS = corsAnyOrigin.config()
	cfg.TestAccounts = 3 // printed below, like Anvil's accounts, for importing into a wallet
	log, err := lg.logger(env.Stderr)
	if err != nil {
		return err
	}
	// Deferred first so it runs last: after Ctrl-C, its line says that every component has
	// stopped and every store and chain is closed.
	up := false
	defer func() {
		if up {
			log.Info("rollgate stopped")
		}
	}()
	// Everything up starts is the group's: listeners, the devnet, stores and actors. Every
	// error path aborts the group, which stops what was started so far and closes what it
	// owns, so a failure half-way leaves no component running and no port taken.
	g := newGroup(ctx)
	// Listen first: a taken port should fail before anything starts.
	indexed := indexedOf(cfg)
	lns := map[string]net.Listener{}
	for i, id := range indexed {
		port := 0
		if indexerBase > 0 {
			port = indexerBase + i
		}
		ln, err := g.Listen(net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			return g.Abort(fmt.Errorf("indexer for %s: %w", id, err))
		}
		lns[id] = ln
	}
	routerLn, err := g.Listen(net.JoinHostPort(host, strconv.Itoa(routerPort)))
	if err != nil {
		return g.Abort(fmt.Errorf("router: %w", err))
	}
	registryLn, err := g.Listen(net.JoinHostPort(host, strconv.Itoa(registryPort)))
	if err != nil {
		return g.Abort(fmt.Errorf("registry: %w", err))
	}
	if pprofAddr != "" {
		if err := servePprof(g, pprofAddr); err != nil {
			return g.Abort(fmt.Errorf("pprof: %w", err))
		}
	}

	netw, err := devnet.Start(ctx, cfg, log.With("component", "devnet"))
	if err != nil {
		return g.Abort(err)
	}
	g.Own(func() error { netw.Close(); return nil })
	eps := netw.Endpoints()

	out := upEndpoints{Chains: map[string]upChain{}, Router: "http://" + routerLn.Addr().String(), Registry: "http://" + registryLn.Addr().String()}
	indexers := map[string]string{}
	// One process, one count of open streams: a client holds at most the per-IP cap over every
	// rollup's listener and the router's together, not that many on each.
	caps := httpapi.NewStreamCaps(0, 0)
	fl := &upFleet{g: g, log: log, caps: caps} // every rollup's indexer in one process (indexer_multi.go)
	// One price service for the router and the fleet's portfolio, over the devnet's registry.
	upReg, err := registry.LoadLogged(filepath.Join(devDir, "registry"), log.With("component", "registry"))
	if err != nil {
		return g.Abort(err)
	}
	prices, err := startPrices(g, defaultPrices, func() *registry.Registry { return upReg }, log)
	if err != nil {
		return g.Abort(err)
	}
	fl.portfolio = &api.PortfolioConfig{Registry: func() *registry.Registry { return upReg }, Prices: prices, REST: &registry.RESTBalances{}}
	for id, e := range eps {
		out.Chains[id] = upChain{ChainEndpoints: e}
	}
	for _, id := range indexed {
		e := eps[id]
		// The devnet lives in memory and starts from genesis on every run, so an index left by
		// an earlier run describes chains that no longer exist: start each store afresh.
		dbPath := filepath.Join(dataDir, id+".db")
		if err := removeSQLite(dbPath); err != nil {
			return g.Abort(err)
		}
		ic, err := upIndexerConfig(env, id, e, "sqlite:"+dbPath, lns[id].Addr().String())
		if err != nil {
			return g.Abort(fmt.Errorf("indexer for %s: %w", id, err))
		}
		ic.RetainHeights = int64(indexRetain)
		if err := fl.add(ic, lns[id]); err != nil {
			return g.Abort(fmt.Errorf("indexer for %s: %w", id, err))
		}
		url := "http://" + lns[id].Addr().String()
		indexers[id] = url
		c := out.Chains[id]
		c.Indexer = url
		out.Chains[id] = c
	}
	// Like the rollups' stores, the tracker's describes the previous run's chains: start afresh.
	trackPath := filepath.Join(dataDir, "router-track.db")
	if err := removeSQLite(trackPath); err != nil {
		return g.Abort(err)
	}
	// Its events are kept for upTrackKeep: far longer than any devnet transfer takes, and far
	// longer than the chains keep the blocks they came from.
	rc := routerConfig{Registry: filepath.Join(devDir, "registry"), Refresh: 30 * time.Second, TrackDB: "sqlite:" + trackPath, CORS: corsAnyOrigin,
		TrackKeep: upTrackKeep, Prices: defaultPrices, prices: prices, StreamCaps: caps}
	if err := startRouter(g, rc, routerLn, log.With("component", "router")); err != nil {
		return g.Abort(err)
	}

	// The registry a browser wallet loads: every chain the kit lists has its indexer.
	regH, err := netw.RegistryHandler(out.Registry, indexers)
	if err != nil {
		return g.Abort(err)
	}
	g.Go(func(ctx context.Context) error {
		return httpapi.Serve(ctx, registryLn, regH, log.With("component", "registry"))
	})

	accts, err := netw.TestAccounts()
	if err != nil {
		return g.Abort(err)
	}
	out.Accounts = &upAccounts{Mnemonic: devnet.TestMnemonic, List: accts,
		Note: "test accounts: BIP-39 mnemonic; the paths wallets derive: m/44'/60'/0'/0/<index> with eth_secp256k1 keys on Initia chains " +
			"(initia.js MnemonicKey, InterwovenKit, MetaMask on EVM rollups: evm lists the 0x address and private key), " +
			"m/44'/118'/0'/0/<index> with secp256k1 on Cosmos chains (hd_paths per chain); never use it for real funds"}
	for _, id := range netw.ChainIDs() {
		if c := out.Chains[id]; c.Indexer != "" && out.Portfolio == "" {
			out.Portfolio = c.Indexer + api.MinityPrefix
		}
	}
	if c := out.Chains[l1ChainID(cfg)]; c.Indexer != "" {
		out.Portfolio = c.Indexer + api.MinityPrefix
	}
	if eth, ok := netw.Ethereum(); ok {
		anvil, err := devnet.AnvilAccounts()
		if err != nil {
			return g.Abort(err)
		}
		out.Ethereum = &upEthereum{ChainID: eth.ChainID(), ChainName: eth.Name(), EVMChainID: eth.EVMChainID(), JSONRPC: eth.JSONRPC(),
			USDT: devnet.LayerZeroUSDT.Hex(), OFTAdapter: devnet.LayerZeroAdapter.Hex(), Endpoint: devnet.LayerZeroEndpoint.Hex(),
			EndpointID: devnet.LayerZeroEIDEthereum, Accounts: anvil}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	path := filepath.Join(dataDir, "endpoints.json")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return g.Abort(err)
	}
	fmt.Fprintf(env.Stdout, "rollgate is up (data dir %s)\n\n", dataDir)
	printChains(env.Stdout, eps, indexers)
	printAccounts(env.Stdout, out.Accounts, eps)
	printEthereum(env.Stdout, out.Ethereum)
	fmt.Fprintf(env.Stdout, "\nROUTER    %s\nREGISTRY  %s (InterwovenKit registryUrl: chains.json, profiles.json)\nPORTFOLIO %s (InterwovenKit minityUrl)\n",
		out.Router, out.Registry, out.Portfolio)
	// What InterwovenKitProvider takes to run against up (packages/interwovenkit-react/src/data/config.ts).
	fmt.Fprintf(env.Stdout, "INTERWOVENKIT  {...TESTNET, defaultChainId: %q, registryUrl: %q, routerApiUrl: %q, minityUrl: %q}\n",
		l1ChainID(cfg), out.Registry, out.Router, out.Portfolio)
	fmt.Fprintf(env.Stdout, "endpoints: %s\nCtrl-C to stop.\n", path)
	up = true
	return g.Wait()
}

// upTrackKeep is how long `up`'s tracker keeps bridge events (track.Store.PruneEvents).
const upTrackKeep = 30 * time.Minute

// removeSQLite removes a SQLite database with its WAL and shared-memory files, if present.
func removeSQLite(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// printAccounts prints the funded test accounts: the mnemonic, then per account and chain the
// path a wallet derives it at, the address and balances, then the EVM rollups' accounts as
// Anvil prints them (0x address, private key), ready for MetaMask's "import account".
// Chains come in the URL table's order.
func printAccounts(w io.Writer, a *upAccounts, eps devnet.Endpoints) {
	fmt.Fprintf(w, "\nTEST ACCOUNTS  mnemonic %q (never for real funds)\n", a.Mnemonic)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	evm := map[string][]string{}
	for _, acc := range a.List {
		ids := acc.ChainIDs()
		sort.SliceStable(ids, func(i, j int) bool { return kindOrder(eps[ids[i]].Kind) < kindOrder(eps[ids[j]].Kind) })
		for _, id := range ids {
			var coins []string
			for _, c := range acc.Balances[id] {
				coins = append(coins, c.Amount+c.Denom)
			}
			fmt.Fprintf(tw, "  #%d\t%s\t%s\t%s\t%s\n", acc.Index, id, acc.HDPaths[id], acc.Addresses[id], strings.Join(coins, ","))
			if e, ok := acc.EVM[id]; ok {
				evm[id] = append(evm[id], fmt.Sprintf("  (%d) %s  private key %s", acc.Index, e.Address, e.PrivateKey))
			}
		}
	}
	tw.Flush()
	ids := make([]string, 0, len(evm))
	for id := range evm {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "\nEVM ACCOUNTS  %s (MetaMask: add its JSON-RPC URL as a network, then import a private key)\n%s\n", id, strings.Join(evm[id], "\n"))
	}
}

// printEthereum prints the Ethereum chain's accounts as Anvil prints them, with what they
// hold and the USDT OFT a LayerZero send goes through.
func printEthereum(w io.Writer, e *upEthereum) {
	if e == nil {
		return
	}
	fmt.Fprintf(w, "\nETHEREUM ACCOUNTS  %s, chain id %d, JSON-RPC %s (MetaMask: add it as a network, then import a private key)\n",
		e.ChainName, e.EVMChainID, e.JSONRPC)
	fmt.Fprintf(w, "  each holds 10000 ETH and 1000000 USDT (%s); LayerZero OFT adapter %s (approve it first), endpoint %s, eid %d\n",
		e.USDT, e.OFTAdapter, e.Endpoint, e.EndpointID)
	for _, a := range e.Accounts {
		fmt.Fprintf(w, "  (%d) %s  private key %s\n", a.Index, a.Address.Hex(), a.PrivateKey)
	}
}

// upIndexerConfig is the indexer `up` runs for one rollup: `rollgate indexer`'s own defaults
// (its flags registered with no environment, so every extension the chain supports is on as
// in a deployment: the rich list, and internal txs on EVM chains) and its own validation,
// with up's URLs, store and listener. Built by hand, the config used to miss the flag
// defaults (RichList false) and the validation that turns internal txs on (internalTx false).
func upIndexerConfig(env *Env, id string, e devnet.ChainEndpoints, db, listen string) (indexerConfig, error) {
	var ic indexerConfig
	quiet := &Env{Build: env.Build, Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	f := newFlags(quiet, "indexer")
	ic.register(f)
	if err := f.parse(nil); err != nil { // the one-chain defaults of indexerModes
		return ic, err
	}
	ic.Mode, ic.Listen, ic.DB = "all", listen, db
	ic.RPC, ic.REST, ic.JSONRPC = e.RPC, e.REST, e.JSONRPC
	ic.MaxConns, ic.CacheMB = 16, 16
	ic.BuildInfo = env.Build
	ic.LogContext = []any{"component", "indexer", "chain_id", id}
	ic.CORS = corsAnyOrigin
	vm := string(e.Kind)
	if e.Kind == devnet.KindL1 {
		vm = string(devnet.KindMove) // Initia's L1 runs Move: its blocks and events are a Move chain's
	}
	ic.Ingest.ChainID, ic.Ingest.VMType, ic.Ingest.AccountPrefix = id, vm, "init"
	return ic, ic.validate(quiet)
}

// indexedOf lists the chains `up` indexes, in port order: the rollups, then the L1, so a
// wallet has an indexer for every chain it shows (InterwovenKit requires one of each).
func indexedOf(cfg devnet.Config) []string {
	ids := rollupsOf(cfg)
	if id := l1ChainID(cfg); id != "" {
		ids = append(ids, id)
	}
	return ids
}

// l1ChainID is the network's L1 ("" without one).
func l1ChainID(cfg devnet.Config) string {
	for _, c := range cfg.Chains {
		if c.Kind == devnet.KindL1 {
			return c.ChainID
		}
	}
	return ""
}

// rollupsOf lists the rollups in a stable order.
func rollupsOf(cfg devnet.Config) []string {
	var ids []string
	for _, c := range cfg.Chains {
		switch c.Kind {
		case devnet.KindEVM, devnet.KindMove, devnet.KindWasm:
			ids = append(ids, c.ChainID)
		}
	}
	sort.Strings(ids)
	return ids
}
