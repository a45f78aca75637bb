package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rollgate/rollgate/internal/devnet"
)

// devnetFlags are the settings of the local network shared by `devnet` and `up`.
type devnetFlags struct {
	seed          int64
	interval      time.Duration
	host          string
	portBase      int
	faults        float64
	faultsRaw     string
	chains        string
	bridgeTraffic float64
	bridgeRaw     string
	txsPerBlock   int
	retainBlocks  int
	keepWithdraw  time.Duration
}

func (d *devnetFlags) register(f *flags) {
	f.Int64(&d.seed, "seed", 1, "seed of the traffic generators and keys (same seed, same chain)", "ROLLGATE_DEVNET_SEED", "DEVNET_SEED")
	f.Duration(&d.interval, "interval", 500*time.Millisecond, "block interval", "ROLLGATE_DEVNET_INTERVAL", "DEVNET_BLOCK_INTERVAL")
	f.String(&d.host, "host", "127.0.0.1", "address the chains listen on", "ROLLGATE_DEVNET_HOST", "DEVNET_HOST")
	f.Int(&d.portBase, "port-base", 26600, "first port: chain i listens on base+10i (rpc), +1 (rest), +2 (json-rpc), +3 (executor); 0 for random ports", "ROLLGATE_DEVNET_PORT_BASE", "DEVNET_PORT_BASE")
	f.String(&d.faultsRaw, "faults", "0", "share of RPC/REST calls that fail (500, hang, close, truncated JSON), 0 to 1", "ROLLGATE_DEVNET_FAULTS", "DEVNET_FAULTS")
	f.String(&d.chains, "chains", "", "chains as id:kind,... (kinds l1, evm, move, wasm, cosmos); default: L1, evm, move and wasm rollups, an external cosmos chain", "ROLLGATE_DEVNET_CHAINS", "DEVNET_CHAINS")
	f.String(&d.bridgeRaw, "bridge-traffic", "0.15", "per-block chance of seeded IBC transfers, deposits and withdrawals (0 to 1)", "ROLLGATE_DEVNET_BRIDGE_TRAFFIC", "DEVNET_BRIDGE_TRAFFIC")
	f.Int(&d.txsPerBlock, "txs-per-block", 0, "bound of the built-in traffic per block (0: the engine's default)", "ROLLGATE_DEVNET_TXS_PER_BLOCK", "DEVNET_TXS_PER_BLOCK")
	f.Int(&d.retainBlocks, "retain-blocks", 600, "blocks (and their state) each chain keeps (600: 5 minutes at the default interval; a block holds ~35 kB); older heights answer as on a pruned node, and settled IBC receipts and acknowledgements go with them; 0 keeps all (memory grows without bound)", "ROLLGATE_DEVNET_RETAIN_BLOCKS", "DEVNET_RETAIN_BLOCKS")
	f.Duration(&d.keepWithdraw, "keep-withdrawals", 30*time.Minute, "how long an OPinit withdrawal stays claimable after its finalization period when --retain-blocks > 0; 0 keeps them all", "ROLLGATE_DEVNET_KEEP_WITHDRAWALS", "DEVNET_KEEP_WITHDRAWALS")
}

func parseShare(name, s string) (float64, error) {
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil || v < 0 || v > 1 {
		return 0, usagef("--%s must be a number from 0 to 1, not %q", name, s)
	}
	return v, nil
}

func (d *devnetFlags) config(dataDir string) (devnet.Config, error) {
	var err error
	if d.faults, err = parseShare("faults", d.faultsRaw); err != nil {
		return devnet.Config{}, err
	}
	if d.bridgeTraffic, err = parseShare("bridge-traffic", d.bridgeRaw); err != nil {
		return devnet.Config{}, err
	}
	if d.interval < 10*time.Millisecond {
		return devnet.Config{}, usagef("--interval must be at least 10ms")
	}
	if d.retainBlocks < 0 {
		return devnet.Config{}, usagef("--retain-blocks must be 0 (keep all) or a positive number of blocks")
	}
	if d.keepWithdraw < 0 {
		return devnet.Config{}, usagef("--keep-withdrawals must be 0 (keep all) or a positive duration")
	}
	if d.portBase < 0 || d.portBase > 65000 {
		return devnet.Config{}, usagef("--port-base must be 0 or a port below 65000")
	}
	cfg := devnet.DefaultConfig()
	if d.chains != "" {
		specs, err := devnet.ParseChains(d.chains)
		if err != nil {
			return cfg, usagef("--chains: %v", err)
		}
		cfg.Chains = specs
	}
	cfg.Seed = uint64(d.seed)
	cfg.BlockInterval = d.interval
	cfg.Host = d.host
	cfg.PortBase = d.portBase
	cfg.Faults = d.faults
	cfg.BridgeTraffic = d.bridgeTraffic
	cfg.TxsPerBlock = d.txsPerBlock
	cfg.RetainBlocks = d.retainBlocks
	cfg.KeepWithdrawals = d.keepWithdraw
	cfg.DataDir = dataDir
	return cfg, nil
}

func runDevnet(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "devnet")
	var d devnetFlags
	var lg logging
	var dataDir string
	var cors corsFlags
	d.register(f)
	lg.register(f)
	cors.register(f)
	f.String(&dataDir, "data-dir", ".rollgate/devnet", "where endpoints.json and the registry directory are written", "ROLLGATE_DEVNET_DATA_DIR", "DEVNET_DATA_DIR")
	if err := f.parse(args); err != nil {
		return err
	}
	if err := cors.validate(); err != nil {
		return err
	}
	cfg, err := d.config(dataDir)
	if err != nil {
		return err
	}
	cfg.CORS = cors.config() // the chains' servers, as the indexers' flags set theirs
	log, err := lg.logger(env.Stderr)
	if err != nil {
		return err
	}
	net, err := devnet.Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		net.Close()
		log.Info("devnet stopped")
	}()
	printChains(env.Stdout, net.Endpoints(), nil)
	fmt.Fprintf(env.Stdout, "\nendpoints: %s\nregistry:  %s\nCtrl-C to stop.\n",
		filepath.Join(dataDir, "endpoints.json"), filepath.Join(dataDir, "registry"))
	<-ctx.Done()
	return nil
}

// printChains writes the table of chain URLs (and indexer URLs, when given).
func printChains(w io.Writer, eps devnet.Endpoints, indexers map[string]string) {
	ids := make([]string, 0, len(eps))
	for id := range eps {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		return kindOrder(eps[ids[i]].Kind) < kindOrder(eps[ids[j]].Kind) || kindOrder(eps[ids[i]].Kind) == kindOrder(eps[ids[j]].Kind) && ids[i] < ids[j]
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cols := []string{"CHAIN", "KIND", "RPC", "REST", "JSON-RPC"}
	if indexers != nil {
		cols = append(cols, "INDEXER")
	}
	fmt.Fprintln(tw, strings.Join(cols, "\t"))
	for _, id := range ids {
		e := eps[id]
		row := []string{id, string(e.Kind), dash(e.RPC), dash(e.REST), dash(e.JSONRPC)}
		if indexers != nil {
			row = append(row, dash(indexers[id]))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

func kindOrder(k devnet.Kind) int {
	switch k {
	case devnet.KindL1:
		return 0
	case devnet.KindEVM, devnet.KindMove, devnet.KindWasm:
		return 1
	}
	return 2
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
