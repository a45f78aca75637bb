package evmrpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/testutil"
	"github.com/rollgate/rollgate/internal/testutil/replaytest"
)

func serve(t *testing.T, name string, opts ...replay.Option) (*replay.Server, *evmrpc.Client) {
	t.Helper()
	return replaytest.Serve(t, name, evmrpc.New, opts...)
}

type capReq struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params []any           `json:"params"`
}

type capResp struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func hexHeight(t *testing.T, v any) int64 {
	s, _ := v.(string)
	h, err := strconv.ParseInt(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		t.Fatalf("height param %v", v)
	}
	return h
}

func TestCapturedResponses(t *testing.T) {
	for _, chain := range testutil.WithBusy("minievm") {
		t.Run(chain, func(t *testing.T) {
			testCaptured(t, chain)
		})
	}
}

func testCaptured(t *testing.T, chain string) {
	ctx := context.Background()
	rs, c := serve(t, chain)
	dir := testutil.Fixture(t, chain)
	counts := map[string]int{}
	for _, rec := range rs.Records() {
		body := bytes.TrimSpace(rec.RequestBody)
		if rec.Method != "POST" || len(body) == 0 || strings.Contains(rec.URL, "/minievm/") {
			continue
		}
		file, err := os.ReadFile(filepath.Join(dir, rec.File))
		if err != nil {
			t.Fatal(err)
		}
		if body[0] == '[' {
			var reqs []capReq
			var want []capResp
			if err := json.Unmarshal(body, &reqs); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(file, &want); err != nil {
				t.Fatal(err)
			}
			batch := make([]evmrpc.Request, len(reqs))
			raws := make([]json.RawMessage, len(reqs))
			for i, r := range reqs {
				batch[i] = evmrpc.Request{Method: r.Method, Params: r.Params, Result: &raws[i]}
			}
			if err := c.Batch(ctx, batch); err != nil {
				t.Fatalf("%s: %v", rec.File, err)
			}
			for i := range batch {
				if batch[i].Error != nil || !bytes.Equal(raws[i], want[i].Result) {
					t.Errorf("%s[%d]: %s, %v; want %s", rec.File, i, raws[i], batch[i].Error, want[i].Result)
				}
			}
			counts["batch"]++
			continue
		}
		var req capReq
		var want capResp
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(file, &want); err != nil {
			t.Fatal(err)
		}
		var got json.RawMessage
		switch req.Method {
		case "eth_getBlockByNumber":
			h := hexHeight(t, req.Params[0])
			var b *evmrpc.Block
			if b, err = c.BlockByNumber(ctx, h, req.Params[1].(bool)); err == nil {
				got = b.Raw
				if int64(b.Number) != h {
					t.Errorf("%s: number %d", rec.File, b.Number)
				}
			}
		case "eth_getBlockReceipts":
			var rs []*evmrpc.Receipt
			if rs, err = c.BlockReceipts(ctx, hexHeight(t, req.Params[0])); err == nil {
				var raws []json.RawMessage
				if err := json.Unmarshal(want.Result, &raws); err != nil {
					t.Fatal(err)
				}
				if len(rs) != len(raws) {
					t.Fatalf("%s: %d receipts, want %d", rec.File, len(rs), len(raws))
				}
				for i, r := range rs {
					if !bytes.Equal(r.Raw, raws[i]) || r.From == "" || !strings.HasPrefix(r.TransactionHash, "0x") {
						t.Errorf("%s: receipt %d = %+v", rec.File, i, r)
					}
					// cosmos-only txs appear as pseudo txs with neither to nor a created contract
					if r.To != nil && r.ContractAddress != nil {
						t.Errorf("%s: receipt %d: to %v and contractAddress %v", rec.File, i, *r.To, *r.ContractAddress)
					}
				}
				got = want.Result
			}
		case "debug_traceBlockByNumber":
			got, err = c.TraceBlockByNumber(ctx, hexHeight(t, req.Params[0]), "callTracer")
		case "eth_getTransactionReceipt":
			var r *evmrpc.Receipt
			if r, err = c.TransactionReceipt(ctx, req.Params[0].(string)); err == nil {
				got = r.Raw
			}
		case "eth_call":
			call := req.Params[0].(map[string]any)
			var out string
			if out, err = c.EthCall(ctx, call["to"].(string), call["data"].(string), req.Params[1].(string)); err == nil {
				got, _ = json.Marshal(out)
			}
		case "eth_blockNumber":
			var n uint64
			if n, err = c.BlockNumber(ctx); err == nil {
				got = json.RawMessage(`"0x` + strconv.FormatUint(n, 16) + `"`)
			}
		default:
			err = c.Call(ctx, req.Method, req.Params, &got)
		}
		counts[req.Method]++
		switch {
		case len(want.Error) > 0:
			var re *evmrpc.RPCError
			var we struct {
				Message string `json:"message"`
			}
			if err := json.Unmarshal(want.Error, &we); err != nil {
				t.Fatal(err)
			}
			if !errors.As(err, &re) || re.Message != we.Message {
				t.Errorf("%s: want RPCError %s, got %v", rec.File, want.Error, err)
			}
			if future := strings.Contains(rec.File, "errors/"); evmrpc.IsFutureBlock(err) != future {
				t.Errorf("%s: IsFutureBlock(%v) != %v", rec.File, err, future)
			}
		case string(want.Result) == "null":
			if !errors.Is(err, evmrpc.ErrNotFound) {
				t.Errorf("%s: want ErrNotFound, got %v", rec.File, err)
			}
		case err != nil:
			t.Errorf("%s: %v", rec.File, err)
		case !bytes.Equal(got, want.Result):
			t.Errorf("%s: result differs from the capture", rec.File)
		}
	}
	for _, m := range []string{"eth_getBlockByNumber", "eth_getBlockReceipts", "debug_traceBlockByNumber", "eth_getTransactionReceipt", "eth_call"} {
		if counts[m] == 0 {
			t.Errorf("no %s capture exercised", m)
		}
	}
}

// A batch that was never captured as such is answered element by element.
func TestAdHocBatch(t *testing.T) {
	rs, c := serve(t, "minievm")
	var blk, rcpt json.RawMessage
	var chain string
	reqs := []evmrpc.Request{
		{Method: "eth_chainId", Result: &chain},
		{Method: "eth_getBlockByNumber", Params: []any{"0x17", true}, Result: &blk},
		{Method: "eth_getBlockReceipts", Params: []any{"0x17"}, Result: &rcpt},
		{Method: "eth_getBlockReceipts", Params: []any{"0x186a0"}},
		{Method: "eth_noSuchMethod"},
	}
	if err := c.Batch(context.Background(), reqs); err != nil {
		t.Fatal(err)
	}
	if chain != "0x700dbe591233" || reqs[0].Error != nil {
		t.Errorf("chain id %q, %v", chain, reqs[0].Error)
	}
	if reqs[1].Error != nil || !json.Valid(blk) || reqs[2].Error != nil || !json.Valid(rcpt) {
		t.Errorf("block/receipts: %v %v", reqs[1].Error, reqs[2].Error)
	}
	if !errors.Is(reqs[3].Error, evmrpc.ErrNotFound) {
		t.Errorf("future receipts: %v", reqs[3].Error)
	}
	var re *evmrpc.RPCError
	if !errors.As(reqs[4].Error, &re) {
		t.Errorf("unknown method: %v", reqs[4].Error)
	}
	if m := rs.Misses(); len(m) != 1 || !strings.Contains(m[0].Body, "eth_noSuchMethod") {
		t.Errorf("misses %v", m)
	}
	rs.ResetMisses()
}

func TestGrowingChain(t *testing.T) {
	var head atomic.Int64
	head.Store(20)
	rs, c := serve(t, "minievm", replay.MaxHeight(head.Load))
	ctx := context.Background()
	if n, err := c.BlockNumber(ctx); err != nil || n != 20 {
		t.Fatalf("BlockNumber = %d, %v", n, err)
	}
	if _, err := c.BlockByNumber(ctx, 21, true); !errors.Is(err, evmrpc.ErrNotFound) {
		t.Fatalf("block 21 at head 20: %v", err)
	}
	if _, err := c.TraceBlockByNumber(ctx, 21, "callTracer"); !evmrpc.IsFutureBlock(err) {
		t.Fatalf("trace 21 at head 20: %v", err)
	}
	head.Store(21)
	if b, err := c.BlockByNumber(ctx, 21, true); err != nil || b.Number != 21 {
		t.Fatalf("block 21 at head 21: %v", err)
	}
	rs.ResetMisses()
}

// TestReadsHedged: a read whose first attempt hangs is answered by a hedged copy long before
// the 10 s attempt timeout, alone or in a batch; a tx broadcast is never sent twice.
func TestReadsHedged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		call   func(context.Context, *evmrpc.Client) error
		hedged bool
	}{
		{"receipts", func(ctx context.Context, c *evmrpc.Client) error {
			return c.Call(ctx, "eth_getBlockReceipts", []any{"0x1"}, nil)
		}, true},
		{"batch of calls", func(ctx context.Context, c *evmrpc.Client) error {
			return c.Batch(ctx, []evmrpc.Request{{Method: "eth_call", Params: []any{map[string]any{}, "0x1"}}, {Method: "eth_call", Params: []any{map[string]any{}, "0x1"}}})
		}, true},
		{"broadcast", func(ctx context.Context, c *evmrpc.Client) error {
			return c.Call(ctx, "eth_sendRawTransaction", []any{"0x00"}, nil)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if n.Add(1) == 1 {
					<-r.Context().Done() // the first attempt hangs
					return
				}
				var one capReq
				if json.Unmarshal(body, &one) == nil {
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":"0x1"}`, one.ID)
					return
				}
				var many []capReq
				_ = json.Unmarshal(body, &many)
				out := make([]string, len(many))
				for i, m := range many {
					out[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"0x1"}`, m.ID)
				}
				fmt.Fprintf(w, "[%s]", strings.Join(out, ","))
			}))
			defer srv.Close()
			c, err := evmrpc.New(srv.URL, httpx.WithMaxAttempts(1))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err = tc.call(ctx, c)
			if tc.hedged && (err != nil || c.Transport().Hedges() == 0) {
				t.Errorf("err %v with %d hedges; want the hedged copy's answer", err, c.Transport().Hedges())
			}
			if !tc.hedged && (err == nil || n.Load() != 1) {
				t.Errorf("err %v after %d requests; want the one attempt to hang until the deadline", err, n.Load())
			}
		})
	}
}
