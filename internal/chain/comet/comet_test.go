package comet_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/testutil"
	"github.com/rollgate/rollgate/internal/testutil/replaytest"
)

var chains = []string{"minievm", "minimove", "miniwasm"}

func serve(t *testing.T, name string, opts ...replay.Option) (*replay.Server, *comet.Client) {
	t.Helper()
	return replaytest.Serve(t, name, comet.New, opts...)
}

// sameJSON checks that re-encoding the typed value gives the captured JSON back, i.e. the types
// can produce CometBFT's encoding.
func sameJSON(t *testing.T, what string, raw json.RawMessage, v any) {
	t.Helper()
	enc, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("%s: marshal: %v", what, err)
	}
	var a, b any
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(enc, &b); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("%s: re-encoded JSON differs (-captured +typed):\n%s", what, d)
	}
}

func TestCapturedResponses(t *testing.T) {
	ctx := context.Background()
	for _, chain := range testutil.WithBusy(chains...) {
		t.Run(chain, func(t *testing.T) {
			rs, c := serve(t, chain)
			dir := testutil.Fixture(t, chain)
			var n int
			for _, rec := range rs.Records() {
				u, perr := url.Parse(rec.URL)
				if perr != nil || rec.Method != "GET" {
					continue
				}
				q := u.Query()
				h, _ := strconv.ParseInt(q.Get("height"), 10, 64)
				var err error
				switch u.Path {
				case "/block":
					var r *comet.ResultBlock
					if r, err = c.Block(ctx, h); err == nil {
						if r.Block.Header.Height != h {
							t.Errorf("block %d: header height %d", h, r.Block.Header.Height)
						}
						sameJSON(t, rec.File, r.Raw, r)
					}
				case "/block_results":
					var r *comet.ResultBlockResults
					if r, err = c.BlockResults(ctx, h); err == nil {
						if r.Height != h {
							t.Errorf("block_results %d: height %d", h, r.Height)
						}
						for i, tr := range r.TxsResults {
							if !json.Valid(tr.Raw) {
								t.Errorf("%s: tx %d raw not kept", rec.File, i)
							}
						}
						sameJSON(t, rec.File, r.Raw, r)
					}
				case "/tx":
					var r *comet.ResultTx
					if r, err = c.Tx(ctx, q.Get("hash"), false); err == nil {
						if !strings.EqualFold("0x"+r.Hash.String(), q.Get("hash")) {
							t.Errorf("tx %s: got hash %s", q.Get("hash"), r.Hash)
						}
						sameJSON(t, rec.File, resultOf(t, dir, rec.File), r)
					}
				case "/status":
					var r *comet.ResultStatus
					if r, err = c.Status(ctx); err == nil {
						if r.SyncInfo.LatestBlockHeight <= 0 {
							t.Errorf("status height %d", r.SyncInfo.LatestBlockHeight)
						}
						sameJSON(t, rec.File, resultOf(t, dir, rec.File), r)
					}
				case "/genesis":
					var r *comet.ResultGenesis
					if r, err = c.Genesis(ctx); err == nil && !json.Valid(r.Genesis) {
						t.Error("genesis not JSON")
					}
				case "/abci_info":
					var r *comet.ResultABCIInfo
					if r, err = c.ABCIInfo(ctx); err == nil {
						if r.Response.LastBlockHeight <= 0 {
							t.Error("abci_info height")
						}
						sameJSON(t, rec.File, resultOf(t, dir, rec.File), r)
					}
				case "/validators":
					var r *comet.ResultValidators
					if r, err = c.Validators(ctx, h); err == nil {
						if len(r.Validators) == 0 {
							t.Error("no validators")
						}
						sameJSON(t, rec.File, resultOf(t, dir, rec.File), r)
					}
				default:
					continue
				}
				n++
				if rec.Status == 200 {
					if err != nil {
						t.Errorf("%s: %v", rec.File, err)
					}
					continue
				}
				var re *comet.RPCError
				if !errorsAs(err, &re) || re.HTTPStatus != rec.Status || re.Code != -32603 {
					t.Errorf("%s: want RPCError with HTTP %d, got %v", rec.File, rec.Status, err)
					continue
				}
				cur, future := comet.IsFutureHeight(err)
				wantFuture := path.Base(rec.File) != "tx_unknown.json"
				if future != wantFuture {
					t.Errorf("%s: IsFutureHeight = %v, want %v", rec.File, future, wantFuture)
				}
				if future {
					body, _ := os.ReadFile(filepath.Join(dir, rec.File))
					m := regexp.MustCompile(`current blockchain height (\d+)`).FindSubmatch(body)
					if m == nil || strconv.FormatInt(cur, 10) != string(m[1]) {
						t.Errorf("%s: current height %d, captured body %s", rec.File, cur, body)
					}
				}
				if !wantFuture && !comet.IsNotFound(err) {
					t.Errorf("%s: IsNotFound false", rec.File)
				}
			}
			if n < 100 {
				t.Fatalf("only %d CometBFT captures exercised", n)
			}
		})
	}
}

// resultOf returns the "result" member of a captured CometBFT answer.
func resultOf(t *testing.T, dir, file string) json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	var env comet.RPCResponse
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	return env.Result
}

func TestBatchThroughReplay(t *testing.T) {
	rs, c := serve(t, "minievm")
	heights := []int64{3, 23, 63, rs.CapturedMaxHeight() + 5}
	got, err := c.BlockAndResults(context.Background(), heights)
	if len(got) != len(heights) {
		t.Fatalf("got %d bundles", len(got))
	}
	for i, b := range got[:3] {
		if b == nil || b.Block.Block.Header.Height != heights[i] || b.Results.Height != heights[i] {
			t.Fatalf("bundle %d = %+v", i, b)
		}
		single, serr := c.Block(context.Background(), heights[i])
		if serr != nil {
			t.Fatal(serr)
		}
		if string(single.Raw) != string(b.Block.Raw) {
			t.Errorf("height %d: batch raw differs from URI raw", heights[i])
		}
	}
	if got[3] != nil {
		t.Errorf("future height bundle = %+v", got[3])
	}
	cur, ok := comet.IsFutureHeight(err)
	if !ok || cur != rs.CapturedMaxHeight() {
		t.Fatalf("IsFutureHeight(%v) = %d, %v", err, cur, ok)
	}
}

func TestGrowingChain(t *testing.T) {
	var head atomic.Int64
	head.Store(10)
	_, c := serve(t, "minievm", replay.MaxHeight(head.Load))
	ctx := context.Background()
	st, err := c.Status(ctx)
	if err != nil || st.SyncInfo.LatestBlockHeight != 10 {
		t.Fatalf("status = %v, %v", st, err)
	}
	blk, err := c.Block(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(st.SyncInfo.LatestBlockHash, blk.BlockID.Hash) {
		t.Errorf("status hash %s, block 10 hash %s", st.SyncInfo.LatestBlockHash, blk.BlockID.Hash)
	}
	_, err = c.BlockResults(ctx, 11)
	if cur, ok := comet.IsFutureHeight(err); !ok || cur != 10 {
		t.Fatalf("block_results 11 at head 10: %v (%d, %v)", err, cur, ok)
	}
	head.Store(11)
	if _, err := c.BlockResults(ctx, 11); err != nil {
		t.Fatal(err)
	}
}

func TestIsFutureHeight(t *testing.T) {
	tests := []struct {
		err  error
		cur  int64
		want bool
	}{
		{&comet.RPCError{Code: -32603, Message: "Internal error", Data: "height 12 must be less than or equal to the current blockchain height 11"}, 11, true},
		{&comet.RPCError{Code: -32603, Message: "Internal error", Data: "could not find results for height #12"}, 11, true},
		{&comet.RPCError{Code: -32603, Message: "Internal error", Data: "tx (AB) not found"}, 0, false},
		{context.DeadlineExceeded, 0, false},
	}
	for _, tc := range tests {
		cur, ok := comet.IsFutureHeight(tc.err)
		if cur != tc.cur || ok != tc.want {
			t.Errorf("IsFutureHeight(%v) = %d, %v", tc.err, cur, ok)
		}
	}
}

// The error constructors produce the captured bytes.
func TestErrorConstructors(t *testing.T) {
	dir := testutil.Fixture(t, "minievm")
	hash, _ := hex.DecodeString(strings.Repeat("AB", 32))
	for file, e := range map[string]*comet.RPCError{
		"comet/errors/block_future.json": comet.FutureHeightError(100068, 68),
		"comet/errors/tx_unknown.json":   comet.TxNotFoundError(hash),
	} {
		got, err := json.Marshal(comet.RPCResponse{JSONRPC: "2.0", ID: json.RawMessage("-1"), Error: e})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(dir, file))
		if string(got) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", file, got, want)
		}
	}
}
