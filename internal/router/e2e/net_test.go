package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet"

	"github.com/rollgate/rollgate/internal/chain/txcodec"
)

// The network under test is internal/devnet's default devnet (L1, minievm, minimove,
// miniwasm, cosmoshub over IBC, the registry-only LayerZero peer ethereum-devnet) with manual
// blocks, a fixed seed and genesis time, and no seeded bridge traffic.
const (
	seed   = 1
	l1ID   = "initia-devnet-1"
	evmID  = "minievm-devnet-1"
	moveID = "minimove-devnet-1"
	wasmID = "miniwasm-devnet-1"
	hubID  = "cosmoshub-devnet-1"

	// Account ids of the tests: below recipientBase they are the devnet's funded users
	// (UserKey); from recipientBase on, fresh keys derived from the seed that hold nothing at
	// genesis and that no traffic touches, so a recipient's balance moves only by the route.
	recipientBase = 600

	// sdkUser is test account 0 as initia.js opens it: `new MnemonicKey({ mnemonic })` with the
	// SDK's defaults derives m/44'/60'/0'/0/0 with eth_secp256k1
	// (initia-labs/initia.js@22b7c1f:src/key/MnemonicKey.ts), what `rollgate up` funds.
	sdkUser = -1

	// canonicalPortBase lays the committed registry copy's URLs out as the devnet's PortBase
	// does: chain i serves rpc on +10i, rest +1, json-rpc +2, the rollup's executor API +3.
	canonicalPortBase = 26000
)

var genesisTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

type testNet struct {
	ln  *devnet.Network
	dir string // registry directory with the live URLs
}

// startNet starts the devnet with manual blocks and writes its registry to a temp dir.
func startNet(t testing.TB) *testNet {
	t.Helper()
	cfg := devnet.DefaultConfig()
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks = seed, genesisTime, true
	cfg.BlockInterval = time.Second
	cfg.BridgeTraffic = 0 // only the tests' transfers cross the bridges
	cfg.Accounts, cfg.TxsPerBlock = 1, 1
	cfg.TestAccounts = 1 // sdkUser: the wallet a user opens with the mnemonic `rollgate up` prints
	ln, err := devnet.Start(context.Background(), cfg, nil)
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

// step produces one block on every chain; the devnet lets the relayer and executor act on it.
func (tn *testNet) step(ctx context.Context) error { return tn.ln.ProduceBlock(ctx) }

// key is account id's key on a chain (Initia chains share eth_secp256k1 keys; the external
// chain signs with plain secp256k1 keys, so the same id is another address there).
func (tn *testNet) key(t testing.TB, chainID string, id int) *txcodec.PrivKey {
	t.Helper()
	if id == sdkUser {
		s, _ := tn.ln.Spec(chainID)
		typ := txcodec.EthSecp256k1
		if s.CosmosKeys {
			typ = txcodec.Secp256k1
		}
		k, err := txcodec.PrivKeyFromMnemonic(typ, devnet.TestMnemonic, devnet.TestAccountPath(s, 0))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	if id < recipientBase {
		k, err := tn.ln.UserKey(chainID, id)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	s, _ := tn.ln.Spec(chainID)
	k, err := devnet.SeedKey(seed, id, s.CosmosKeys)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func (tn *testNet) addr(t testing.TB, chainID string, id int) string {
	return tn.ln.Address(chainID, tn.key(t, chainID, id))
}

// writeRegistry writes the devnet's registry (its one-hop vouchers and the two-hop ones that
// arrive through the L1 by packet forwarding, which the multi-hop routes need).
func (tn *testNet) writeRegistry(dir string) error { return tn.ln.WriteRegistry(dir) }

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
	if eth, ok := tn.ln.Ethereum(); ok {
		// The Ethereum chain's JSON-RPC, at Anvil's usual port in the copy.
		canon[eth.JSONRPC()] = "http://127.0.0.1:8545"
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
