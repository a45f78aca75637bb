package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/devnet/bridge/opinit"
	"github.com/rollgate/rollgate/internal/devnet/chain"
	"github.com/rollgate/rollgate/internal/devnet/localnet"
)

// The network under test is internal/devnet/localnet's default devnet (L1, minievm, minimove,
// miniwasm, cosmoshub over IBC, the registry-only LayerZero peer ethereum-devnet) with manual
// blocks, a fixed seed and genesis time, and no seeded bridge traffic.
const (
	seed   = 1
	l1ID   = "initia-devnet-1"
	evmID  = "minievm-devnet-1"
	moveID = "minimove-devnet-1"
	wasmID = "miniwasm-devnet-1"
	hubID  = "cosmoshub-devnet-1"

	// Account ids of the tests: below recipientBase they are localnet's funded users
	// (UserKey); from recipientBase on, fresh keys derived from the seed that hold nothing at
	// genesis and that no traffic touches, so a recipient's balance moves only by the route.
	recipientBase = 600

	// canonicalPortBase lays the committed registry copy's URLs out as localnet's PortBase
	// does: chain i serves rpc on +10i, rest +1, json-rpc +2, the rollup's executor API +3.
	canonicalPortBase = 26000
)

var genesisTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type testNet struct {
	ln  *localnet.Network
	dir string // registry directory with the live URLs
}

// startNet starts the localnet with manual blocks and writes its registry to a temp dir.
func startNet(t testing.TB) *testNet {
	t.Helper()
	cfg := localnet.DefaultConfig()
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks = seed, genesisTime, true
	cfg.BlockInterval = time.Second
	cfg.BridgeTraffic = 0 // only the tests' transfers cross the bridges
	cfg.Accounts, cfg.TxsPerBlock = 1, 1
	ln, err := localnet.Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	tn := &testNet{ln: ln, dir: filepath.Join(t.TempDir(), "registry")}
	if err := tn.writeRegistry(tn.dir); err != nil {
		t.Fatal(err)
	}
	return tn
}

// step produces one block on every chain; localnet lets the relayer and executor act on it.
func (tn *testNet) step(ctx context.Context) error { return tn.ln.ProduceBlock(ctx) }

func (tn *testNet) prefix(chainID string) string {
	s, _ := tn.ln.Spec(chainID)
	return s.Prefix
}

// key is account id's key on a chain (Initia chains share eth_secp256k1 keys; the external
// chain signs with plain secp256k1 keys, so the same id is another address there).
func (tn *testNet) key(t testing.TB, chainID string, id int) *txcodec.PrivKey {
	t.Helper()
	if id < recipientBase {
		k, err := tn.ln.UserKey(chainID, id)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	s, _ := tn.ln.Spec(chainID)
	ck, err := chain.DeriveKey(seed, id, !s.CosmosKeys)
	if err != nil {
		t.Fatal(err)
	}
	typ := txcodec.EthSecp256k1
	if s.CosmosKeys {
		typ = txcodec.Secp256k1
	}
	k, err := txcodec.NewPrivKey(typ, ck.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (tn *testNet) addr(t testing.TB, chainID string, id int) string {
	return tn.ln.Address(chainID, tn.key(t, chainID, id))
}

// writeRegistry writes localnet's registry plus the router's overlay (see overlayAssets).
func (tn *testNet) writeRegistry(dir string) error {
	if err := tn.ln.WriteRegistry(dir); err != nil {
		return err
	}
	for id, extra := range overlayAssets() {
		if err := appendAssets(filepath.Join(dir, chainName(id), "assetlist.json"), extra); err != nil {
			return err
		}
	}
	return nil
}

func chainName(id string) string { return id[:strings.Index(id, "-devnet")] }

// overlayAssets are registry entries localnet does not write yet but the router needs to
// offer the multi-hop routes the issue asks for: a destination must be a listed asset, and
// localnet lists one-hop vouchers only. They are the vouchers packet-forward delivers through
// the L1 (channel ids as bridge.Wire assigns them: L1 channel-N ↔ the N-th other chain's
// channel-0): a rollup's token on another rollup, the hub's ATOM on a rollup, and minimove's
// OPinit INIT forwarded to miniwasm (the op-hook route). Drop an entry once localnet writes it.
func overlayAssets() map[string][]map[string]any {
	return map[string][]map[string]any{
		wasmID: {
			voucher("transfer/channel-0/transfer/channel-1/uusdc", moveID, "uusdc", "USDC", 6),
			voucher("transfer/channel-0/transfer/channel-3/uatom", hubID, "uatom", "ATOM", 6),
			voucher("transfer/channel-0/transfer/channel-1/"+opinit.L2Denom(2, "uinit"), moveID, opinit.L2Denom(2, "uinit"), "INIT", 6),
		},
	}
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
	have := map[string]bool{}
	for _, a := range list {
		if m, ok := a.(map[string]any); ok {
			b, _ := m["base"].(string)
			have[b] = true
		}
	}
	for _, a := range extra {
		// once localnet lists an overlay entry itself, its own entry wins
		if b, _ := a["base"].(string); !have[b] {
			list = append(list, a)
		}
	}
	doc["assets"] = list
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// canonicalFiles reads the registry directory with every live URL replaced by its canonical
// form (relative path → content), so the copy does not depend on the ports the OS handed out.
func (tn *testNet) canonicalFiles(dir string) (map[string][]byte, error) {
	canon := map[string]string{}
	eps := tn.ln.Endpoints()
	for i, id := range tn.ln.ChainIDs() {
		e := eps[id]
		for j, u := range []string{e.RPC, e.REST, e.JSONRPC, tn.ln.ExecutorURL(id)} {
			if u != "" {
				canon[u] = fmt.Sprintf("http://127.0.0.1:%d", canonicalPortBase+10*i+j)
			}
		}
	}
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// whole JSON strings only, so no URL rewrites a prefix of another
		for live, c := range canon {
			b = bytes.ReplaceAll(b, []byte(`"`+live+`"`), []byte(`"`+c+`"`))
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out, err
}
