package devnet_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
)

var genesis = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// standalone is the network these tests run: an L1 and one rollup of each VM, without
// bridges, so what they see is the engine, the servers and the VMs alone.
func standalone() devnet.Config {
	cfg := devnet.DefaultConfig()
	cfg.Chains = cfg.Chains[:4]
	cfg.Bridges, cfg.BridgeTraffic, cfg.Users, cfg.LayerZero = false, 0, 0, false
	return cfg
}

// startNet starts a manual-block network of the given chains and produces n blocks.
func startNet(t testing.TB, seed uint64, n int, specs ...devnet.ChainSpec) *devnet.Network {
	t.Helper()
	cfg := standalone()
	if len(specs) > 0 {
		cfg.Chains = specs
	}
	cfg.Seed, cfg.GenesisTime, cfg.ManualBlocks = seed, genesis, true
	net, err := devnet.Start(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	for i := 0; i < n; i++ {
		if err := net.ProduceBlock(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return net
}

func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func post(t testing.TB, url string, body any) (int, []byte) {
	t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func rpcBody(method string, params ...any) map[string]any {
	if params == nil {
		params = []any{}
	}
	return map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
}

func sha(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// deliverTx signs msg with k at account number num and sequence seq, broadcasts it on c and
// produces a block. A tx CheckTx turns away returns that code and log and a nil body; a
// delivered one returns the code and log of its /tx answer and the answer itself.
func deliverTx(t testing.TB, n *devnet.Network, c *devnet.Chain, k *engine.Key, num, seq, gas uint64, msg proto.Message) (code uint32, log string, body []byte) {
	t.Helper()
	raw, err := engine.SignDirect(c.ID(), k, num, seq, []proto.Message{msg}, "", engine.Fee{GasLimit: gas})
	if err != nil {
		t.Fatal(err)
	}
	if _, code, log := c.Broadcast(raw); code != 0 {
		return code, log, nil
	}
	if err := n.ProduceBlock(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, body = get(t, fmt.Sprintf("%s/tx?hash=0x%X", c.RPC(), sha(raw)))
	var res struct {
		Result struct {
			TxResult struct {
				Code uint32 `json:"code"`
				Log  string `json:"log"`
			} `json:"tx_result"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatalf("/tx: %s", body)
	}
	return res.Result.TxResult.Code, res.Result.TxResult.Log, body
}
