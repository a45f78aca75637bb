package track

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// fakeChain is a CometBFT RPC serving a chain of blocks the test grows and can replace by
// another one (a reset under the same chain id, or a node repointed at another network): the
// answers the scanner reads (/status, /block, the JSON-RPC batch of block and block_results),
// each block's hash derived from the chain's seed and height and its last_block_id.hash the
// hash of the block below, as a real chain's.
type fakeChain struct {
	srv *httptest.Server

	mu     sync.Mutex
	id     string
	seed   string
	blocks []fakeBlock // height i+1
}

type fakeBlock struct {
	txs     [][]byte
	results []*comet.ExecTxResult
}

func newFakeChain(t *testing.T, id, seed string) *fakeChain {
	c := &fakeChain{id: id, seed: seed}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *fakeChain) hash(h int64) comet.HexBytes {
	sum := sha256.Sum256([]byte(c.seed + "/" + strconv.FormatInt(h, 10)))
	return sum[:]
}

// grow adds n empty blocks.
func (c *fakeChain) grow(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range n {
		c.blocks = append(c.blocks, fakeBlock{})
	}
}

// tx adds a block holding one successful tx with the given events; it returns the tx hash.
func (c *fakeChain) tx(name string, evs ...comet.Event) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	raw := []byte(c.seed + "/" + name)
	c.blocks = append(c.blocks, fakeBlock{txs: [][]byte{raw}, results: []*comet.ExecTxResult{{Code: 0, Events: evs}}})
	return TxHash(raw)
}

// replace makes the node serve another chain: chain id id, seed seed, n empty blocks.
func (c *fakeChain) replace(id, seed string, n int) {
	c.mu.Lock()
	c.id, c.seed, c.blocks = id, seed, nil
	c.mu.Unlock()
	c.grow(n)
}

func (c *fakeChain) block(h int64) (*comet.ResultBlock, *comet.ResultBlockResults, bool) {
	if h < 1 || h > int64(len(c.blocks)) {
		return nil, nil, false
	}
	b := c.blocks[h-1]
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h) * time.Second)
	hdr := comet.Header{ChainID: c.id, Height: h, Time: at}
	if h > 1 {
		hdr.LastBlockID = comet.BlockID{Hash: c.hash(h - 1)}
	}
	txs := b.txs
	if txs == nil {
		txs = [][]byte{}
	}
	res := b.results
	if res == nil {
		res = []*comet.ExecTxResult{}
	}
	return &comet.ResultBlock{BlockID: comet.BlockID{Hash: c.hash(h)}, Block: &comet.Block{Header: hdr, Data: comet.Data{Txs: txs}}},
		&comet.ResultBlockResults{Height: h, TxsResults: res}, true
}

func (c *fakeChain) answer(method string, h int64) (any, *comet.RPCError) {
	switch method {
	case "status":
		return comet.ResultStatus{NodeInfo: comet.NodeInfo{Network: c.id}, SyncInfo: comet.SyncInfo{LatestBlockHeight: int64(len(c.blocks))}}, nil
	case "block", "block_results":
		blk, res, ok := c.block(h)
		if !ok {
			return nil, &comet.RPCError{Code: -32603, Message: "Internal error", Data: fmt.Sprintf("height %d must be less than or equal to the current blockchain height %d", h, len(c.blocks))}
		}
		if method == "block" {
			return blk, nil
		}
		return res, nil
	case "tx":
		return nil, &comet.RPCError{Code: -32603, Message: "Internal error", Data: "tx not found"}
	}
	return nil, &comet.RPCError{Code: -32601, Message: "Method not found"}
}

func (c *fakeChain) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	envelope := func(id json.RawMessage, res any, rerr *comet.RPCError) map[string]any {
		m := map[string]any{"jsonrpc": "2.0", "id": id}
		if rerr != nil {
			m["error"] = rerr
		} else {
			m["result"] = res
		}
		return m
	}
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		var reqs []struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params map[string]string `json:"params"`
		}
		if err := json.Unmarshal(body, &reqs); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out := make([]map[string]any, 0, len(reqs))
		for _, q := range reqs {
			h, _ := strconv.ParseInt(q.Params["height"], 10, 64)
			res, rerr := c.answer(q.Method, h)
			out = append(out, envelope(q.ID, res, rerr))
		}
		_ = json.NewEncoder(w).Encode(out)
		return
	}
	h, _ := strconv.ParseInt(r.URL.Query().Get("height"), 10, 64)
	res, rerr := c.answer(r.URL.Path[1:], h)
	if rerr != nil {
		w.WriteHeader(http.StatusInternalServerError)
	}
	_ = json.NewEncoder(w).Encode(envelope(json.RawMessage("-1"), res, rerr))
}

// fakeRegistry is the devnet registry with the named chains' RPCs on fake chains and every
// other chain unfollowed (no RPC).
func fakeRegistry(t *testing.T, chains map[string]*fakeChain) *registry.Live {
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reg.Chains {
		c.RPC, c.JSONRPC = nil, nil // only the fakes answer: no scan of a registry URL
		if f := chains[c.ID]; f != nil {
			c.RPC = []string{f.srv.URL}
		}
	}
	return registry.NewLive(reg)
}

func attrs(kv ...string) []comet.EventAttribute {
	var out []comet.EventAttribute
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, comet.EventAttribute{Key: kv[i], Value: kv[i+1], Index: true})
	}
	return out
}

// depositInit and depositFin are an OPinit deposit's events on L1 and on the rollup (bridge 2
// is minimove's in the devnet registry).
func depositInit(seq string) comet.Event {
	return comet.Event{Type: "initiate_token_deposit", Attributes: attrs("bridge_id", "2", "l1_sequence", seq, "from", "init1from", "to", "init1to",
		"l1_denom", "uinit", "l2_denom", "l2/x", "amount", "5", "msg_index", "0")}
}

func depositFin(seq string) comet.Event {
	return comet.Event{Type: "finalize_token_deposit", Attributes: attrs("l1_sequence", seq, "success", "true", "reason", "", "msg_index", "0")}
}
