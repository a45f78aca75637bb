package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
)

func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v: %.200s", url, err, b)
		}
	}
	return resp.StatusCode
}

func getBody(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestUp runs `rollgate up` the way the README says (random ports so tests can run side by
// side): the devnet produces blocks, each rollup's indexer catches up with its chain over
// real HTTP, the router answers from the devnet's registry, and Ctrl-C stops everything
// with exit code 0. Twice on the same data directory, because a second `up` must not trip
// over the first run's index.
func TestUp(t *testing.T) {
	dir := t.TempDir()
	for round := 1; round <= 2; round++ {
		deadline := time.Now().Add(20 * time.Second)
		u := startUp(t, dir, 20*time.Second, "--interval", "100ms", "--log-level", "info")
		defer u.stop(t) // a failed round leaves nothing running
		eps, out, errb := u.eps, u.out, u.errb
		rollups := 0
		for id, c := range eps.Chains {
			if c.Indexer == "" {
				continue
			}
			rollups++
			// The chain serves blocks and the indexer follows it to at least height 5.
			var st struct {
				ChainID string `json:"chain_id"`
				Height  int64  `json:"height"`
			}
			for time.Now().Before(deadline) && st.Height < 5 {
				time.Sleep(100 * time.Millisecond)
				getJSON(t, c.Indexer+"/status", &st)
			}
			if st.ChainID != id || st.Height < 5 {
				t.Errorf("round %d: indexer of %s at %+v", round, id, st)
			}
			var txs struct {
				Txs []json.RawMessage `json:"txs"`
			}
			if code := getJSON(t, c.Indexer+"/indexer/tx/v1/txs?pagination.limit=5", &txs); code != 200 || len(txs.Txs) == 0 {
				t.Errorf("round %d: %s txs: status %d, %d txs", round, id, code, len(txs.Txs))
			}
			// Every extension the chain supports is on, as in a deployment: the rich list
			// (its height on /status, holders of the fee denom) and, on the EVM rollup, the
			// internal txs traced from call traces (internal_tx_height).
			var ext struct {
				RichListHeight   int64 `json:"rich_list_height"`
				InternalTxHeight int64 `json:"internal_tx_height"`
			}
			evm := vmkind.Kind(c.Kind) == vmkind.EVM
			for time.Now().Before(deadline) && (ext.RichListHeight == 0 || evm && ext.InternalTxHeight == 0) {
				getJSON(t, c.Indexer+"/status", &ext)
				time.Sleep(100 * time.Millisecond)
			}
			if ext.RichListHeight == 0 || evm && ext.InternalTxHeight == 0 || !evm && ext.InternalTxHeight != 0 {
				t.Errorf("round %d: %s (%s) /status extensions %+v", round, id, c.Kind, ext)
			}
			var holders struct {
				Holders []struct {
					Account string `json:"account"`
					Amount  string `json:"amount"`
				} `json:"holders"`
			}
			feeDenom := map[string]string{"evm": "GAS", "move": "umin", "wasm": "umin", "l1": "uinit"}[string(c.Kind)]
			if code := getJSON(t, c.Indexer+"/indexer/richlist/v1/"+feeDenom, &holders); code != 200 || len(holders.Holders) == 0 {
				t.Errorf("round %d: %s rich list of %s: status %d, %d holders", round, id, feeDenom, code, len(holders.Holders))
			}
			var itxs struct {
				Txs []json.RawMessage `json:"txs"`
			}
			if code := getJSON(t, c.Indexer+"/indexer/tx/v1/evm-internal-txs?pagination.limit=1", &itxs); evm && code != 200 || !evm && code != 404 {
				t.Errorf("round %d: %s (%s) internal txs: status %d", round, id, c.Kind, code)
			}
			// Every indexer streams: from=1 replays block 2 from the store first.
			if ev := firstStreamEvent(t, c.Indexer+"/indexer/block/v1/blocks/stream?from=1"); ev.Name != "block" || ev.ID != "2" {
				t.Errorf("round %d: %s block stream from 1: first event %q id %q", round, id, ev.Name, ev.ID)
			}
			// Every rollup's indexer runs in one process: each URL also lists all of them.
			var fleet struct {
				Chains []struct {
					ChainID string `json:"chain_id"`
				}
			}
			if code := getJSON(t, c.Indexer+"/chains", &fleet); code != 200 || len(fleet.Chains) != 4 {
				t.Errorf("round %d: %s /chains: %d %+v, want the 3 rollups and the L1", round, id, code, fleet.Chains)
			}
			// … and serves each of them under the base /chains gives, /{chain_id}/.
			for _, other := range fleet.Chains {
				var ost struct {
					ChainID string `json:"chain_id"`
				}
				if code := getJSON(t, c.Indexer+"/"+other.ChainID+"/status", &ost); code != 200 || ost.ChainID != other.ChainID {
					t.Errorf("round %d: %s /%s/status: %d %+v", round, id, other.ChainID, code, ost)
				}
			}
			// `up` serves browser apps on any origin.
			if !preflightAllowsAnyOrigin(t, c.Indexer+"/indexer/tx/v1/txs", http.MethodGet) {
				t.Errorf("round %d: %s indexer refuses a cross-origin preflight", round, id)
			}
		}
		checkUpAccounts(t, eps, out.String())
		if rollups != 4 {
			t.Errorf("round %d: %d indexers, want one per rollup and the L1's (4)", round, rollups)
		}
		checkUpRegistry(t, eps)
		if want := fmt.Sprintf("INTERWOVENKIT  {...TESTNET, defaultChainId: \"initia-devnet-1\", registryUrl: %q, routerApiUrl: %q, minityUrl: %q}", eps.Registry, eps.Router, eps.Portfolio); !strings.Contains(out.String(), want) {
			t.Errorf("round %d: no InterwovenKit config line %s in\n%s", round, want, out)
		}
		var chains struct {
			Chains []struct {
				ChainID string `json:"chain_id"`
			} `json:"chains"`
		}
		if code := getJSON(t, eps.Router+"/v2/info/chains?include_evm=true", &chains); code != 200 || len(chains.Chains) < len(eps.Chains) {
			t.Errorf("round %d: router chains: status %d, %d chains for %d devnet chains", round, code, len(chains.Chains), len(eps.Chains))
		}
		// The router's status stream is served: an unknown transfer is the tracker's 404, not
		// a missing route's.
		if code, body := getBody(t, eps.Router+"/v2/tx/status/stream?chain_id=initia-devnet-1&tx_hash="+strings.Repeat("AB", 32)); code != 404 || strings.Contains(body, "no route") {
			t.Errorf("round %d: router status stream: %d %s", round, code, body)
		}
		if !preflightAllowsAnyOrigin(t, eps.Router+"/v2/fungible/route", http.MethodPost) {
			t.Errorf("round %d: router refuses a cross-origin preflight", round)
		}
		if round == 2 {
			checkUpStreamCap(t, eps)
		}
		if code := u.stop(t); code != 0 {
			t.Fatalf("round %d: exit code %d; stderr %s", round, code, errb)
		}
		// The last line says so once everything has stopped and closed.
		checkLastLogLine(t, errb.String(), "rollgate stopped")
	}
}

// checkUpRegistry: the printed registry URL serves InterwovenKit's registryUrl
// (packages/interwovenkit-react/src/data/chains.ts): chains.json with the L1 and every rollup,
// each with the indexer `up` runs for it, and assetlists over http.
func checkUpRegistry(t *testing.T, eps upEndpoints) {
	t.Helper()
	var chains []struct {
		ChainID string `json:"chain_id"`
		APIs    struct {
			Indexer []struct{ Address string } `json:"indexer"`
		} `json:"apis"`
		Metadata struct {
			Assetlist string `json:"assetlist"`
		} `json:"metadata"`
	}
	if code := getJSON(t, eps.Registry+"/chains.json", &chains); code != 200 || len(chains) != 4 {
		t.Fatalf("registry chains.json: %d, %d chains", code, len(chains))
	}
	for _, c := range chains {
		if len(c.APIs.Indexer) != 1 || c.APIs.Indexer[0].Address != eps.Chains[c.ChainID].Indexer {
			t.Errorf("registry %s indexer %+v, up runs %q", c.ChainID, c.APIs.Indexer, eps.Chains[c.ChainID].Indexer)
		}
		if code, _ := getBody(t, c.Metadata.Assetlist); code != 200 || !strings.HasPrefix(c.Metadata.Assetlist, eps.Registry+"/") {
			t.Errorf("registry %s assetlist %s: %d", c.ChainID, c.Metadata.Assetlist, code)
		}
	}
	if code := getJSON(t, eps.Registry+"/profiles.json", nil); code != 200 {
		t.Errorf("registry profiles.json: %d", code)
	}
	if !preflightAllowsAnyOrigin(t, eps.Registry+"/chains.json", http.MethodGet) {
		t.Error("the registry refuses a cross-origin preflight")
	}
}

// TestUpFailureLeavesNothing makes a later step of `up` fail, after listeners, the devnet,
// stores and actors have started, and checks that the error comes back with nothing left
// behind: no goroutine (servers, pipelines, the devnet's chains) and no port still taken.
func TestUpFailureLeavesNothing(t *testing.T) {
	tests := []struct {
		name    string
		blocker string // made a non-empty directory under the data dir, so resetting it fails
	}{
		// The second rollup's store, after the first rollup's indexer started.
		{"second_indexer_store", "minimove-devnet-1.db"},
		// The router's tracker store, after every indexer started.
		{"tracker_store", "router-track.db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, tc.blocker, "keep"), 0o755); err != nil {
				t.Fatal(err)
			}
			// A port known to be free: up's router listens on it before anything else starts.
			probe, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			routerPort := probe.Addr().(*net.TCPAddr).Port
			probe.Close()
			env, _, errb := testEnv(nil)
			code := run(t.Context(), env, []string{"up", "--data-dir", dir, "--port-base", "0", "--indexer-port-base", "0",
				"--router-port", strconv.Itoa(routerPort), "--registry-port", "0", "--interval", "100ms", "--log-level", "info"})
			if code == 0 || !strings.Contains(errb.String(), tc.blocker) {
				t.Fatalf("exit code %d, want a failure naming %s; stderr %s", code, tc.blocker, errb)
			}
			// The failure came after at least one indexer had started ingesting.
			if !strings.Contains(errb.String(), "component=indexer") {
				t.Fatalf("no indexer started before the failure; stderr %s", errb)
			}
			goleak.VerifyNone(t, leakOptions(ignore)...)
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(routerPort)))
			if err != nil {
				t.Fatalf("the router's port is still taken after the failure: %v", err)
			}
			ln.Close()
		})
	}
}

// TestDevnetCommand runs `rollgate devnet` and checks what it promises: every chain serves
// CometBFT RPC with blocks moving, and endpoints.json plus the registry are on disk.
func TestDevnetCommand(t *testing.T) {
	dir := t.TempDir()
	env, out, errb := testEnv(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, env, []string{"devnet", "--data-dir", dir, "--port-base", "0", "--interval", "50ms", "--log-level", "info"})
	}()
	var eps map[string]struct {
		Kind    string `json:"kind"`
		RPC     string `json:"rpc"`
		JSONRPC string `json:"json_rpc"`
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(out.String(), "Ctrl-C") {
		time.Sleep(50 * time.Millisecond)
	}
	b, err := os.ReadFile(filepath.Join(dir, "endpoints.json"))
	if err != nil || json.Unmarshal(b, &eps) != nil || len(eps) < 4 {
		cancel()
		t.Fatalf("endpoints.json: %v %s; stdout %s stderr %s", err, b, out, errb)
	}
	for id, e := range eps {
		if _, err := os.Stat(filepath.Join(dir, "registry")); err != nil {
			t.Fatalf("registry: %v", err)
		}
		if e.Kind == string(devnet.KindEthereum) {
			// The LayerZero Ethereum chain has no CometBFT RPC: its blocks move on JSON-RPC.
			if h := ethBlockNumber(t, e.JSONRPC, deadline); h == 0 {
				t.Errorf("%s: no Ethereum blocks after genesis", id)
			}
			continue
		}
		var st struct {
			Result struct {
				SyncInfo struct {
					Height string `json:"latest_block_height"`
				} `json:"sync_info"`
			} `json:"result"`
		}
		for time.Now().Before(deadline) && (st.Result.SyncInfo.Height == "" || st.Result.SyncInfo.Height == "1") {
			getJSON(t, e.RPC+"/status", &st)
			time.Sleep(20 * time.Millisecond)
		}
		if h := st.Result.SyncInfo.Height; h == "" || h == "1" {
			t.Errorf("%s (%s): no blocks after genesis, height %q", id, e.Kind, h)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, errb)
	}
	checkLastLogLine(t, errb.String(), "devnet stopped")
}

// checkUpAccounts: the URL table and endpoints.json list the accounts wallets derive from the
// printed mnemonic (initia.js MnemonicKey / InterwovenKit / MetaMask: m/44'/60'/0'/0/i,
// eth_secp256k1; Keplr on the hub: m/44'/118'/0'/0/i), and the EVM rollup's as Anvil prints
// them, 0x address and private key.
func checkUpAccounts(t *testing.T, eps upEndpoints, table string) {
	t.Helper()
	if eps.Accounts == nil || eps.Accounts.Mnemonic != devnet.TestMnemonic || len(eps.Accounts.List) != 3 {
		t.Fatalf("endpoints.json accounts: %+v", eps.Accounts)
	}
	a := eps.Accounts.List[0]
	const init0, evm0, key0 = "init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
		"0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	for _, id := range []string{"initia-devnet-1", "minievm-devnet-1", "minimove-devnet-1", "miniwasm-devnet-1"} {
		if a.Addresses[id] != init0 || a.HDPaths[id] != "m/44'/60'/0'/0/0" || len(a.Balances[id]) == 0 {
			t.Errorf("endpoints.json account 0 on %s: %s %s %v", id, a.Addresses[id], a.HDPaths[id], a.Balances[id])
		}
	}
	if e := a.EVM["minievm-devnet-1"]; e.Address != evm0 || e.PrivateKey != key0 {
		t.Errorf("endpoints.json account 0 on the EVM rollup: %+v", a.EVM)
	}
	hub := a.Addresses["cosmoshub-devnet-1"]
	if !strings.HasPrefix(hub, "cosmos1") || a.HDPaths["cosmoshub-devnet-1"] != "m/44'/118'/0'/0/0" {
		t.Errorf("endpoints.json account 0 on the hub: %s %s", hub, a.HDPaths["cosmoshub-devnet-1"])
	}
	for _, want := range []string{
		"TEST ACCOUNTS mnemonic \"" + devnet.TestMnemonic + "\"",
		"#0 initia-devnet-1 m/44'/60'/0'/0/0 " + init0, "#0 minievm-devnet-1 m/44'/60'/0'/0/0 " + init0,
		"#0 cosmoshub-devnet-1 m/44'/118'/0'/0/0 " + hub, "#2 miniwasm-devnet-1 m/44'/60'/0'/0/2 ",
		"EVM ACCOUNTS minievm-devnet-1", "(0) " + evm0 + " private key " + key0,
	} {
		if !hasLine(table, want) {
			t.Errorf("URL table lacks %q:\n%s", want, table)
		}
	}
	// The LayerZero Ethereum chain: its row, Anvil's ten accounts, and a JSON-RPC that
	// answers with its chain id and blocks.
	e := eps.Ethereum
	if e == nil || e.ChainID != "31337" || e.EVMChainID != 31337 || len(e.Accounts) != 10 || e.Accounts[0].Address.Hex() != evm0 || e.Accounts[0].PrivateKey != key0 {
		t.Fatalf("endpoints.json ethereum: %+v", e)
	}
	for _, want := range []string{"31337 ethereum - - " + e.JSONRPC, "ETHEREUM ACCOUNTS ethereum-devnet, chain id 31337, JSON-RPC " + e.JSONRPC,
		"(0) " + evm0 + " private key " + key0, "(9) " + e.Accounts[9].Address.Hex() + " private key "} {
		if !hasLine(table, want) {
			t.Errorf("URL table lacks %q:\n%s", want, table)
		}
	}
	if h := ethBlockNumber(t, e.JSONRPC, time.Now().Add(10*time.Second)); h == 0 {
		t.Error("the Ethereum chain produces no blocks")
	}
}

// hasLine reports whether a line of out starts, after leading blanks and with runs of
// blanks as one, with prefix (the table's columns are padded to their widest cell).
func hasLine(out, prefix string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.Join(strings.Fields(l), " "), prefix) {
			return true
		}
	}
	return false
}

// checkUpStreamCap: the per-address stream cap (100) counts over every rollup's listener and
// the router's together: of 102 streams of one address over the three indexer URLs at most
// 100 are served (all 102 were, 34 a listener, when each listener counted its own), and the
// router then refuses that address a stream too. A stream the test closed earlier may still
// be counted until its next heartbeat finds the client gone, so a few fewer may be served.
func checkUpStreamCap(t *testing.T, eps upEndpoints) {
	t.Helper()
	var urls []string
	for _, c := range eps.Chains {
		if c.Indexer != "" {
			urls = append(urls, c.Indexer+"/indexer/block/v1/blocks/stream")
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl := &http.Client{Transport: &http.Transport{}}
	defer cl.CloseIdleConnections()
	served := 0
	get := func(u string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			t.Cleanup(func() { resp.Body.Close() }) // open until the check is over
		} else {
			resp.Body.Close()
		}
		return resp.StatusCode
	}
	for i := range 102 {
		switch code := get(urls[i%len(urls)]); code {
		case http.StatusOK:
			served++
		case http.StatusServiceUnavailable:
		default:
			t.Fatalf("stream %d: status %d", i, code)
		}
	}
	if served > 100 || served < 95 {
		t.Errorf("102 streams of one address over %d listeners: %d served, want at most the cap of 100 (and not far below)", len(urls), served)
	}
	if code := get(eps.Router + "/v2/tx/status/stream?chain_id=initia-devnet-1&tx_hash=" + strings.Repeat("AB", 32)); code != http.StatusServiceUnavailable {
		t.Errorf("router stream with the address at its cap: %d, want 503", code)
	}
	cancel()
}

// ethBlockNumber polls eth_blockNumber until it is past genesis or the deadline.
func ethBlockNumber(t *testing.T, url string, deadline time.Time) uint64 {
	t.Helper()
	for {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
		if err != nil {
			t.Fatalf("eth_blockNumber: %v", err)
		}
		var r struct {
			Result string `json:"result"`
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("eth_blockNumber: %v", err)
		}
		h, _ := strconv.ParseUint(strings.TrimPrefix(r.Result, "0x"), 16, 64)
		if h > 0 || time.Now().After(deadline) {
			return h
		}
		time.Sleep(20 * time.Millisecond)
	}
}
