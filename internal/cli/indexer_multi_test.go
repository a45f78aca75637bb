package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestIndexerChainsRegistry runs `rollgate indexer --chains <registry dir>` over a registry in
// the initia-registry layout holding the L1 and one rollup (the captured minievm chain): the
// rollup is indexed to its top under /{chain_id}/, the L1 is left out.
func TestIndexerChainsRegistry(t *testing.T) {
	dir := testutil.Fixture(t, "minievm")
	probe, err := replay.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	top := probe.CapturedMaxHeight()
	rp, err := replay.New(dir, replay.MaxHeight(func() int64 { return top }), replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(rp)
	t.Cleanup(up.Close)
	reg := t.TempDir()
	write := func(name, body string) {
		if err := os.MkdirAll(filepath.Join(reg, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(reg, name, "chain.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("initia", `{"chain_id":"initia-1","bech32_prefix":"init","apis":{"rpc":[{"address":"http://127.0.0.1:1"}],"rest":[{"address":"http://127.0.0.1:1"}]},"metadata":{"is_l1":true}}`)
	write("minievm", fmt.Sprintf(`{"chain_id":"local-evm-1","bech32_prefix":"init","apis":{"rpc":[{"address":%[1]q}],"rest":[{"address":%[1]q}],"json-rpc":[{"address":%[1]q}]},"metadata":{"minitia":{"type":"minievm","version":"v1"}}}`, up.URL))

	addr := freeAddr(t)
	env, _, errb := testEnv(map[string]string{"DB_DSN": "sqlite:" + t.TempDir()})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, env, []string{"indexer", "--chains", reg, "--listen", addr, "--log-level", "warn", "--chain-hosts", "evm.localhost=local-evm-1"})
	}()
	defer func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("exit code %d after shutdown; stderr:\n%s", code, errb)
			}
		case <-time.After(30 * time.Second):
			t.Error("indexer did not stop after cancellation")
		}
	}()
	var height int64
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline) && height < top; {
		time.Sleep(100 * time.Millisecond)
		resp, err := http.Get("http://" + addr + "/local-evm-1/status")
		if err != nil {
			continue
		}
		var st struct {
			Height, Internal, RichList int64
		}
		var raw map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&raw)
		resp.Body.Close()
		num := func(k string) int64 { f, _ := raw[k].(float64); return int64(f) }
		st.Height, st.Internal, st.RichList = num("height"), num("internal_tx_height"), num("rich_list_height")
		height = min(st.Height, st.Internal, st.RichList)
	}
	if height != top {
		t.Fatalf("local-evm-1 at %d, want %d; stderr:\n%s", height, top, errb)
	}
	// By Host: the chain's API at the root.
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/status", nil)
	req.Host = "evm.localhost:8080"
	hr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var hs struct {
		ChainID string `json:"chain_id"`
	}
	_ = json.NewDecoder(hr.Body).Decode(&hs)
	hr.Body.Close()
	if hr.StatusCode != 200 || hs.ChainID != "local-evm-1" {
		t.Fatalf("/status by Host: %d %q", hr.StatusCode, hs.ChainID)
	}
	resp, err := http.Get("http://" + addr + "/chains")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Chains []struct {
			ID     string `json:"chain_id"`
			VMType string `json:"vm_type"`
		} `json:"chains"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	if len(list.Chains) != 1 || list.Chains[0].ID != "local-evm-1" || vmkind.Kind(list.Chains[0].VMType) != vmkind.EVM {
		t.Fatalf("/chains: %+v, want the rollup only", list.Chains)
	}
}

// TestIndexerChainsUsage: --chains' usage errors exit 2 before anything starts.
func TestIndexerChainsUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "chains.json")
	if err := os.WriteFile(file, []byte(`{"chains":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"missing file":      {"--chains", filepath.Join(t.TempDir(), "none.json")},
		"leases on sqlite":  {"--chains", file, "--leases", "--db", "sqlite:" + t.TempDir()},
		"mode ingest":       {"--chains", file, "--mode", "ingest"},
		"env, bad mode api": {"--mode", "x"},
		"bad chain-hosts":   {"--chains", file, "--chain-hosts", "nohost"},
	} {
		t.Run(name, func(t *testing.T) {
			env, _, errb := testEnv(map[string]string{"ROLLGATE_CHAINS": file})
			if code := run(context.Background(), env, append([]string{"indexer", "--listen", "127.0.0.1:0"}, args...)); code != 2 {
				t.Fatalf("exit code %d, want 2; stderr %s", code, errb)
			}
		})
	}
}

// TestIndexerHelpListsBothForms: `rollgate indexer -h` lists the one-chain flags and the
// fleet's (--chains and the flags only it has), and `--chains … -h` the same both ways.
func TestIndexerHelpListsBothForms(t *testing.T) {
	for name, args := range map[string][]string{
		"one chain": {"indexer", "--help"},
		"fleet":     {"indexer", "--chains", "x.json", "-h"},
	} {
		t.Run(name, func(t *testing.T) {
			env, _, errb := testEnv(nil)
			if code := run(context.Background(), env, args); code != 0 {
				t.Fatalf("exit code %d; stderr %s", code, errb)
			}
			for _, flag := range []string{"-rpc-url", "-chain-id", "-chains string", "-chains-reload", "-upstream-budget", "-pool-conns", "-leases", "-chain-hosts"} {
				if !strings.Contains(errb.String(), "  "+flag) {
					t.Errorf("help lacks %s:\n%s", flag, errb)
				}
			}
		})
	}
}
