package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/bridge"
	"github.com/rollgate/rollgate/internal/devnet/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/bridge/relayer"
	"github.com/rollgate/rollgate/internal/devnet/chain"
	"github.com/rollgate/rollgate/internal/devnet/sim"
)

// The network under test. Until internal/devnet/localnet exists this harness wires it the way
// internal/devnet/bridge documents (TestOnEngine): the engine's chains, the bridge modules,
// the relayer/executor, deposit-hook runners, and the registry directory the router reads.
// startNet is the one place to switch to localnet.Start once it lands.
const (
	seed       = 1
	l1ID       = "initia-devnet-1"
	evmID      = "minievm-devnet-1"
	moveID     = "minimove-devnet-1"
	wasmID     = "miniwasm-devnet-1"
	hubID      = "cosmoshub-devnet-1"
	ethChainID = "31337" // the registry-only LayerZero chain ethereum-devnet

	// userKeyIndex is the funded test user (far from the genesis accounts the engine's
	// traffic signs with); recipients derive fresh keys from recipientKeyBase on.
	userKeyIndex     = 500
	recipientKeyBase = 600

	// canonicalPortBase lays the committed registry copy's URLs out as if the devnet had been
	// started with PortBase 26000: chain i serves rpc on +10i, rest +1, json-rpc +2, and the
	// rollup's executor API +3.
	canonicalPortBase = 26000

	// LayerZero values of the registry-only chain (no EVM node runs for it).
	lzEthEndpoint = 40161
	lzL1Endpoint  = 40326
	usdtEth       = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
	usdtEthOFT    = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512"
	usdtL1        = "move/13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d"
	usdtL1OFT     = "0x1e8c0fb3a0ddee518632ff8429612da8c6ba19f202390e72c977286bd8e6972b"
)

var genesisTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type netChain struct {
	id, kind, prefix, fee string
	natives               []string
}

var netChains = []netChain{
	{l1ID, string(chain.KindL1), "init", "uinit", []string{"uinit"}},
	{evmID, string(chain.KindEVM), "init", "GAS", nil},
	{moveID, string(chain.KindMove), "init", "umove", []string{"umove"}},
	{wasmID, string(chain.KindWasm), "init", "uwasm", []string{"uwasm"}},
	{hubID, string(chain.KindCosmos), "cosmos", "uatom", []string{"uatom"}},
}

func chainName(id string) string { return id[:strings.Index(id, "-devnet")] }

func prefixOf(id string) string {
	for _, c := range netChains {
		if c.id == id {
			return c.prefix
		}
	}
	return "init"
}

type testNet struct {
	nw        *devnet.Network
	rel       *relayer.Relayer
	wiring    *bridge.Network
	dir       string            // registry directory with the live URLs
	executors map[string]string // rollup chain id → executor API URL
	canonical map[string]string // live URL → canonical URL
}

func mustKey(t testing.TB, index int) *chain.Key {
	t.Helper()
	k, err := chain.DeriveKey(seed, index, true)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// startNet starts the network with manual blocks and writes its registry to a temp dir.
func startNet(t testing.TB) *testNet {
	t.Helper()
	relKey, exKey, err := bridge.BotKeys(seed, false)
	if err != nil {
		t.Fatal(err)
	}
	user := mustKey(t, userKeyIndex)
	tn := &testNet{executors: map[string]string{}, canonical: map[string]string{}}

	var specs []bridge.ChainSpec
	cfg := devnet.Config{Seed: seed, GenesisTime: genesisTime, BlockInterval: time.Second, ManualBlocks: true, Accounts: 1, TxsPerBlock: 1}
	for _, c := range netChains {
		s := bridge.ChainSpec{ChainID: c.id, Kind: c.kind, Prefix: c.prefix, ChainName: chainName(c.id), NativeDenoms: c.natives}
		if c.kind != bridge.KindL1 && c.kind != bridge.KindExternal {
			s.Executor = chain.Bech32(c.prefix, exKey.Address())
		}
		specs = append(specs, s)
		cfg.Chains = append(cfg.Chains, devnet.ChainSpec{ChainID: c.id, Kind: chain.Kind(c.kind)})
	}
	chainOf := func(id string) (sim.Query, error) {
		c, ok := tn.nw.Chain(id)
		if !ok {
			return nil, fmt.Errorf("no chain %s", id)
		}
		return c.Chain.Query(c.Chain.Height())
	}
	runners := map[string]opinit.DepositHookExecutor{}
	for _, s := range specs {
		if s.Executor != "" {
			runners[s.ChainID] = bridge.NewHookRunner(s.ChainID)
		}
	}
	wiring, err := bridge.Wire(specs, bridge.Options{DepositHooks: runners, Withdrawals: opinit.ChildWithdrawals(func(id uint64) (sim.Query, error) {
		for _, cm := range tn.wiring.Chains {
			if cm.BridgeID == id {
				return chainOf(cm.Spec.ChainID)
			}
		}
		return nil, fmt.Errorf("no bridge %d", id)
	})})
	if err != nil {
		t.Fatal(err)
	}
	tn.wiring = wiring
	for id, r := range runners {
		cm, _ := wiring.Chain(id)
		r.(*bridge.HookRunner).AddModules(cm.Modules()...)
	}
	for i := range cfg.Chains {
		id := cfg.Chains[i].ChainID
		cm, _ := wiring.Chain(id)
		meta := cm.Registry.Metadata()
		switch {
		case cm.Spec.Kind == bridge.KindL1:
			meta["layerzero"] = map[string]any{"endpoint_id": lzL1Endpoint}
		case cm.BridgeID != 0:
			// The executor API wallets claim withdrawals with (GET /withdrawals/{address}).
			srv := httptest.NewServer(opinit.ExecutorAPI(cm.BridgeID, func() (sim.Query, error) { return chainOf(id) }))
			t.Cleanup(srv.Close)
			tn.executors[id] = srv.URL
			tn.canonical[srv.URL] = fmt.Sprintf("http://127.0.0.1:%d", canonicalPortBase+10*i+3)
			meta["executor_uri"] = srv.URL
		}
		cfg.Chains[i].Metadata = meta
	}
	big15 := big.NewInt(1_000_000_000_000_000)
	cfg.Plugins = func(spec devnet.ChainSpec) devnet.Plugins {
		cm, _ := wiring.Chain(spec.ChainID)
		var nc netChain
		for _, c := range netChains {
			if c.id == spec.ChainID {
				nc = c
			}
		}
		return devnet.Plugins{Modules: cm.Modules(), SkipBankTraffic: true, Configure: func(c *chain.Config) {
			c.Bech32Prefix = nc.prefix
			if spec.Kind != chain.KindEVM {
				c.FeeDenom = nc.fee
				c.AccountCoins = []chain.Coin{{Denom: nc.fee, Amount: new(big.Int).Set(big15)}}
			}
			c.ExtraAccounts = append(c.ExtraAccounts, bridge.BotAccounts(c.FeeDenom, relKey, exKey)...)
			c.ExtraAccounts = append(c.ExtraAccounts, chain.GenesisAccount{Address: user.Address(),
				Coins: []chain.Coin{{Denom: c.FeeDenom, Amount: new(big.Int).Set(big15)}}})
		}}
	}
	nw, err := devnet.Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tn.nw = nw
	t.Cleanup(func() { _ = nw.Close() })
	var eps []relayer.Endpoint
	for i, c := range nw.Chains() {
		p := prefixOf(c.Spec.ChainID)
		eps = append(eps, relayer.Endpoint{Chain: relayer.NewEngineChain(c.Chain, relKey, exKey),
			Relayer: chain.Bech32(p, relKey.Address()), Executor: chain.Bech32(p, exKey.Address())})
		e := c.Endpoints
		for j, u := range []string{e.RPC, e.REST, e.JSONRPC} {
			if u != "" {
				tn.canonical[u] = fmt.Sprintf("http://127.0.0.1:%d", canonicalPortBase+10*i+j)
			}
		}
	}
	if tn.rel, err = relayer.New(wiring.RelayerConfig(eps)); err != nil {
		t.Fatal(err)
	}
	tn.dir = filepath.Join(t.TempDir(), "registry")
	if err := tn.writeRegistry(tn.dir); err != nil {
		t.Fatal(err)
	}
	return tn
}

// step produces one block on every chain and lets the relayer and executor act on it.
func (tn *testNet) step(ctx context.Context) error {
	if err := tn.nw.ProduceBlock(); err != nil {
		return err
	}
	return tn.rel.Step(ctx)
}

// writeRegistry writes the initia-registry directory: the engine's chain.json/assetlist.json
// plus the bridged assets the bridge wiring declares, the multi-hop vouchers that should be
// routable, and the registry-only LayerZero chain.
func (tn *testNet) writeRegistry(dir string) error {
	if err := tn.nw.WriteRegistry(dir); err != nil {
		return err
	}
	for _, cm := range tn.wiring.Chains {
		var extra []map[string]any
		for _, a := range cm.Registry.Assets {
			extra = append(extra, a.AssetJSON())
		}
		extra = append(extra, extraAssets(cm.Spec.ChainID)...)
		if err := appendAssets(filepath.Join(dir, chainName(cm.Spec.ChainID), "assetlist.json"), extra); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(dir, "ethereum-devnet", "chain.json"), map[string]any{
		"$schema": "../chain.schema.json", "chain_name": "ethereum-devnet", "pretty_name": "Ethereum Devnet", "chain_id": ethChainID,
		"chain_type": "evm", "evm_chain_id": 31337, "network_type": "devnet",
		"apis":     map[string]any{"json-rpc": []map[string]string{{"address": "http://127.0.0.1:8545"}}},
		"metadata": map[string]any{"layerzero": map[string]any{"endpoint_id": lzEthEndpoint}},
	}); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dir, "ethereum-devnet", "assetlist.json"), map[string]any{
		"$schema": "../assetlist.schema.json", "chain_name": "ethereum-devnet",
		"assets": []map[string]any{
			{"description": "Ether", "base": "ethereum-devnet-native", "display": "eth", "name": "Ether", "symbol": "ETH",
				"denom_units": []map[string]any{{"denom": "ethereum-devnet-native", "exponent": 0}, {"denom": "eth", "exponent": 18}}},
			{"description": "Tether USD", "base": usdtEth, "display": "usdt", "name": "Tether USD", "symbol": "USDT",
				"denom_units": []map[string]any{{"denom": usdtEth, "exponent": 0}, {"denom": "usdt", "exponent": 6}},
				"traces": []map[string]any{{"type": "bridge", "provider": "LayerZero", "chain": map[string]any{},
					"counterparty": map[string]any{"chain_name": "initia", "chain_id": l1ID, "base_denom": usdtL1}}},
				"layerzero": map[string]any{"oft_address": usdtEthOFT, "needs_approval": true}},
		},
	})
}

// voucher is an assetlist entry for an ICS-20 voucher with its full path.
func voucher(path, originChain, originDenom, symbol string, decimals int) map[string]any {
	base := "ibc/" + denom.IBCHash(path)
	parts := strings.Split(path, "/")
	display := strings.ToLower(symbol)
	return map[string]any{
		"description": "bridged " + originDenom + " (" + path + ")", "base": base, "display": display, "name": symbol, "symbol": symbol,
		"denom_units": []map[string]any{{"denom": base, "exponent": 0}, {"denom": display, "exponent": decimals}},
		"traces": []map[string]any{{"type": "ibc",
			"counterparty": map[string]any{"chain_name": chainName(originChain), "chain_id": originChain, "base_denom": originDenom},
			"chain":        map[string]any{"channel_id": parts[1], "path": path}}},
		"images": []any{}, "logo_URIs": map[string]string{},
	}
}

// extraAssets are the registry entries beyond the bridge's one-hop vouchers: assets reached
// through the L1's packet-forward middleware (rollup → L1 → rollup, hub → L1 → rollup, and the
// OPinit token of one rollup forwarded to another) and the L1 side of the LayerZero pair.
func extraAssets(chainID string) []map[string]any {
	switch chainID {
	case wasmID:
		return []map[string]any{
			voucher("transfer/channel-0/transfer/channel-1/umove", moveID, "umove", "MOVE", 6),
			voucher("transfer/channel-0/transfer/channel-3/uatom", hubID, "uatom", "ATOM", 6),
			voucher("transfer/channel-0/transfer/channel-1/"+opinit.L2Denom(2, "uinit"), moveID, opinit.L2Denom(2, "uinit"), "INIT", 6),
		}
	case l1ID:
		return []map[string]any{{
			"description": "Tether USD (LayerZero)", "base": usdtL1, "display": "usdt", "name": "Tether USD (LayerZero)", "symbol": "USDT",
			"denom_units": []map[string]any{{"denom": usdtL1, "exponent": 0}, {"denom": "usdt", "exponent": 6}},
			"traces": []map[string]any{{"type": "bridge", "provider": "LayerZero", "chain": map[string]any{},
				"counterparty": map[string]any{"chain_name": "ethereum-devnet", "chain_id": ethChainID, "base_denom": usdtEth}}},
			"layerzero": map[string]any{"oft_address": usdtL1OFT},
		}}
	}
	return nil
}

func appendAssets(path string, extra []map[string]any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	list, _ := doc["assets"].([]any)
	for _, a := range extra {
		list = append(list, a)
	}
	doc["assets"] = list
	return writeJSON(path, doc)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// canonicalFiles reads the registry directory with every live URL replaced by its canonical
// form (relative path → content), so the copy does not depend on the ports the OS handed out.
func (tn *testNet) canonicalFiles(dir string) (map[string][]byte, error) {
	live := make([]string, 0, len(tn.canonical))
	for u := range tn.canonical {
		live = append(live, u)
	}
	// longest first, so http://127.0.0.1:1234 never rewrites a prefix of http://127.0.0.1:12345
	sort.Slice(live, func(i, j int) bool {
		return len(live[i]) > len(live[j]) || len(live[i]) == len(live[j]) && live[i] < live[j]
	})
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, u := range live {
			b = bytes.ReplaceAll(b, []byte(`"`+u+`"`), []byte(`"`+tn.canonical[u]+`"`))
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out, err
}

var _ http.Handler = (*http.ServeMux)(nil)
