package cosmosrest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/testutil"
	"github.com/rollgate/rollgate/internal/testutil/replaytest"
)

func serve(t *testing.T, name string, opts ...replay.Option) (*replay.Server, *cosmosrest.Client) {
	t.Helper()
	return replaytest.Serve(t, name, cosmosrest.New, opts...)
}

var errUnsendable = errors.New("request cannot be sent")

var restPrefixes = []string{"/cosmos/", "/minievm/", "/initia/", "/cosmwasm/", "/opinit/", "/miniwasm/", "/ibc/"}

func splitURL(raw string) (path, query string) {
	rest := raw[strings.Index(raw, "://")+3:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest = rest[i:]
	} else {
		rest = "/"
	}
	path, query, _ = strings.Cut(rest, "?")
	return path, query
}

func TestCapturedResponses(t *testing.T) {
	ctx := context.Background()
	for _, chain := range []string{"minievm", "minimove", "miniwasm"} {
		t.Run(chain, func(t *testing.T) {
			rs, c := serve(t, chain)
			dir := testutil.Fixture(t, chain)
			n := 0
			for _, rec := range rs.Records() {
				path, rawQuery := splitURL(rec.URL)
				isREST := false
				for _, p := range restPrefixes {
					isREST = isREST || strings.HasPrefix(path, p)
				}
				if !isREST {
					continue
				}
				n++
				file, err := os.ReadFile(filepath.Join(dir, rec.File))
				if err != nil {
					t.Fatal(err)
				}
				height, _ := strconv.ParseInt(rec.RequestHeaders["x-cosmos-block-height"], 10, 64)
				q, _ := url.ParseQuery(rawQuery)
				err = call(ctx, t, c, rec.Method, path, rawQuery, q, height, rec.RequestBody, file)
				if errors.Is(err, errUnsendable) {
					n--
					continue
				}
				if rec.Status == http.StatusOK {
					if err != nil {
						t.Errorf("%s: %v", rec.File, err)
					}
					continue
				}
				var re *cosmosrest.Error
				if !errors.As(err, &re) || re.HTTPStatus != rec.Status {
					t.Errorf("%s: want *cosmosrest.Error with HTTP %d, got %v", rec.File, rec.Status, err)
					continue
				}
				var gw struct {
					Code int `json:"code"`
				}
				if json.Unmarshal(file, &gw) == nil && re.Code != gw.Code {
					t.Errorf("%s: code %d, want %d", rec.File, re.Code, gw.Code)
				}
				if nf := re.HTTPStatus == 404 || gw.Code == 5; cosmosrest.IsNotFound(err) != nf {
					t.Errorf("%s: IsNotFound = %v", rec.File, !nf)
				}
				_, future := cosmosrest.IsFutureHeight(err)
				if want := bytes.Contains(file, []byte("invalid height")); future != want {
					t.Errorf("%s: IsFutureHeight = %v, want %v", rec.File, future, want)
				}
			}
			if n < 50 {
				t.Fatalf("only %d REST captures exercised", n)
			}
		})
	}
}

// call dispatches one captured request to the matching helper and checks the decoded answer
// against the captured bytes.
func call(ctx context.Context, t *testing.T, c *cosmosrest.Client, method, path, rawQuery string, q url.Values, height int64, reqBody json.RawMessage, file []byte) error {
	t.Helper()
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")
	limitOnly := rawQuery == "pagination.limit=100"
	// Not every captured answer is a JSON object (errors are plain text); only the cases
	// below that read capMap need it, and they fail on a missing member.
	var capMap map[string]json.RawMessage
	_ = json.Unmarshal(file, &capMap)
	switch {
	case method == http.MethodPost && path == "/minievm/evm/v1/call":
		var b struct{ Sender, ContractAddr, Input, Value string }
		var raw map[string]string
		if err := json.Unmarshal(reqBody, &raw); err != nil {
			t.Fatal(err)
		}
		b.Sender, b.ContractAddr, b.Input, b.Value = raw["sender"], raw["contract_addr"], raw["input"], raw["value"]
		r, err := c.Call(ctx, b.Sender, b.ContractAddr, b.Input, b.Value, height)
		if err == nil && !strings.HasPrefix(r.Response, "0x") && r.Error == "" {
			t.Errorf("%s: call response %q", path, r.Response)
		}
		return err
	case strings.HasPrefix(path, "/cosmos/tx/v1beta1/txs/block/") && limitOnly:
		h, _ := strconv.ParseInt(seg[len(seg)-1], 10, 64)
		r, err := c.TxsByBlock(ctx, h)
		if err == nil {
			var want struct {
				Txs        []json.RawMessage `json:"txs"`
				Pagination struct {
					Total string `json:"total"`
				} `json:"pagination"`
			}
			if err := json.Unmarshal(file, &want); err != nil {
				t.Fatal(err)
			}
			if len(r.Txs) != len(want.Txs) || strconv.FormatUint(r.Total, 10) != want.Pagination.Total || !bytes.Equal(r.Block, capMap["block"]) {
				t.Errorf("%s: %d txs (total %d), want %d", path, len(r.Txs), r.Total, len(want.Txs))
			}
			for i := range r.Txs {
				if !bytes.Equal(r.Txs[i], want.Txs[i]) {
					t.Errorf("%s: tx %d not verbatim", path, i)
				}
			}
		}
		return err
	case strings.HasPrefix(path, "/cosmos/tx/v1beta1/txs/") && len(seg) == 5:
		r, err := c.TxByHash(ctx, seg[4])
		if err == nil && (r.TxResponse.TxHash != seg[4] || r.TxResponse.Height <= 0 || !bytes.Equal(r.Tx, capMap["tx"])) {
			t.Errorf("%s: tx_response %+v", path, r.TxResponse)
		}
		return err
	case path == "/cosmos/base/tendermint/v1beta1/blocks/latest":
		r, err := c.LatestBlock(ctx)
		if err == nil && (r.Height <= 0 || r.ChainID == "") {
			t.Errorf("%s: %+v", path, r)
		}
		return err
	case path == "/cosmos/base/tendermint/v1beta1/node_info":
		r, err := c.NodeInfo(ctx)
		if err == nil && (r.ApplicationVersion.Version == "" || r.Network == "") {
			t.Errorf("%s: %+v", path, r)
		}
		return err
	case strings.HasPrefix(path, "/cosmos/bank/v1beta1/balances/") && limitOnly:
		r, err := c.Balances(ctx, seg[4], height)
		var want struct {
			Balances []cosmosrest.Coin `json:"balances"`
		}
		if err := json.Unmarshal(file, &want); err != nil {
			t.Fatal(err)
		}
		if err == nil && len(r) != len(want.Balances) {
			t.Errorf("%s: %d balances, want %d", path, len(r), len(want.Balances))
		}
		return err
	case path == "/cosmos/auth/v1beta1/accounts" && limitOnly:
		r, err := c.Accounts(ctx, cosmosrest.PageRequest{}, height)
		if err == nil {
			for _, a := range r.Accounts {
				if cosmosrest.AccountAddress(a) == "" {
					t.Errorf("%s: no address in %s", path, a)
				}
			}
		}
		return err
	case path == "/cosmos/auth/v1beta1/module_accounts":
		r, err := c.ModuleAccounts(ctx)
		if err == nil && (len(r) == 0 || r[0].Name == "" || r[0].BaseAccount.Address == "") {
			t.Errorf("%s: %+v", path, r)
		}
		return err
	case strings.HasPrefix(path, "/opinit/opchild/v1/validator/"):
		r, err := c.OpchildValidator(ctx, seg[4])
		if err == nil && r.OperatorAddress != seg[4] {
			t.Errorf("%s: %+v", path, r)
		}
		return err
	case path == "/opinit/opchild/v1/validators" && rawQuery == "":
		r, err := c.OpchildValidators(ctx)
		if err == nil && (len(r) == 0 || !strings.HasPrefix(r[0].OperatorAddress, "initvaloper1") || r[0].ConsPower <= 0) {
			t.Errorf("%s: %+v", path, r)
		}
		return err
	case path == "/minievm/evm/v1/contracts/by_denom":
		r, err := c.ContractByDenom(ctx, q.Get("denom"))
		if err == nil && !strings.HasPrefix(r, "0x") {
			t.Errorf("%s: %q", path, r)
		}
		return err
	case strings.HasSuffix(path, "/resources/by_struct_tag"):
		r, err := c.Resource(ctx, seg[4], q.Get("struct_tag"), height)
		if err == nil && (r.StructTag != q.Get("struct_tag") || !json.Valid([]byte(r.MoveResource))) {
			t.Errorf("%s: %+v", path, r)
		}
		return err
	case strings.HasPrefix(path, "/cosmwasm/wasm/v1/contract/") && len(seg) == 5:
		r, err := c.ContractInfo(ctx, seg[4], height)
		if err == nil && (r.Address != seg[4] || r.ContractInfo.Creator == "") {
			t.Errorf("%s: %+v", path, r)
		}
		return err
	case strings.HasPrefix(path, "/cosmwasm/wasm/v1/contract/") && len(seg) == 7 && seg[5] == "smart":
		msg, derr := base64.StdEncoding.DecodeString(seg[6])
		if derr != nil {
			// "%%%" is not a valid URL path: net/http refuses to send it, so no client can ask
			return errUnsendable
		}
		r, err := c.Smart(ctx, seg[4], msg, height)
		if err == nil && !bytes.Equal(r, capMap["data"]) {
			t.Errorf("%s: data %s", path, r)
		}
		return err
	}
	var raw json.RawMessage
	var err error
	if method == http.MethodPost {
		err = c.Post(ctx, path, reqBody, height, &raw)
	} else {
		err = c.Get(ctx, path, q, height, &raw)
	}
	if err == nil && !bytes.Equal(raw, file) {
		t.Errorf("%s: raw answer differs from the capture", path)
	}
	return err
}

// pager serves a block's txs in pages, optionally dropping next_key like some nodes do.
func pager(t *testing.T, total int, dropNextKey bool) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		q := r.URL.Query()
		limit, _ := strconv.Atoi(q.Get("pagination.limit"))
		start, _ := strconv.Atoi(q.Get("pagination.offset"))
		if k := q.Get("pagination.key"); k != "" {
			b, _ := base64.StdEncoding.DecodeString(k)
			start, _ = strconv.Atoi(string(b))
		}
		var txs []string
		for i := start; i < total && i < start+limit; i++ {
			txs = append(txs, `{"body":{"memo":"`+strconv.Itoa(i)+`"}}`)
		}
		next := "null"
		if start+limit < total && !dropNextKey {
			next = `"` + base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(start+limit))) + `"`
		}
		w.Write([]byte(`{"txs":[` + strings.Join(txs, ",") + `],"block_id":{},"block":{"header":{"height":"9"}},"pagination":{"next_key":` + next + `,"total":"` + strconv.Itoa(total) + `"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestTxsByBlockPagination(t *testing.T) {
	for _, tc := range []struct {
		total     int
		drop      bool
		wantCalls int32
	}{
		{0, false, 1}, {5, false, 1}, {100, false, 1}, {250, false, 3}, {250, true, 3}, {200, true, 2},
	} {
		srv, calls := pager(t, tc.total, tc.drop)
		c, _ := cosmosrest.New(srv.URL)
		r, err := c.TxsByBlock(context.Background(), 9)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Txs) != tc.total || calls.Load() != tc.wantCalls {
			t.Errorf("total %d drop %v: %d txs in %d calls, want %d calls", tc.total, tc.drop, len(r.Txs), calls.Load(), tc.wantCalls)
		}
		for i, tx := range r.Txs {
			if !strings.Contains(string(tx), `"memo":"`+strconv.Itoa(i)+`"`) {
				t.Fatalf("tx %d out of order: %s", i, tx)
			}
		}
	}
}

// TestGatewayErrorRetries: a node's verdicts (the captured nodes' future height, unknown tx,
// unserved route, bad request) are final at once; a gateway 500 with code 13 Internal (what
// grpc-gateway or a proxy in front of the node sends when it fails itself) and the "busy"
// codes are retried by the transport, and answered once the upstream recovers.
func TestGatewayErrorRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		body      string
		wantCalls int32
		wantOK    bool
	}{
		{"future height", 500, `{"code":2, "message":"codespace sdk code 26: invalid height: requested height 100 but height must not be less than 1 or greater than the current height 42", "details":[]}`, 1, false},
		{"tx not found", 404, `{"code":5, "message":"tx not found: AB", "details":[]}`, 1, false},
		{"bad request", 400, `{"code":3, "message":"invalid query data", "details":[]}`, 1, false},
		{"not implemented", 501, `{"code":12, "message":"Not Implemented", "details":[]}`, 1, false},
		{"internal", 500, `{"code":13, "message":"injected fault: internal error", "details":[]}`, 2, true},
		{"unavailable", 503, `{"code":14, "message":"connection refused", "details":[]}`, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) > 1 {
					w.Write([]byte(`{"txs":[],"block_id":{},"block":{},"pagination":{"next_key":null,"total":"0"}}`))
					return
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			c, _ := cosmosrest.New(srv.URL, httpx.WithBackoff(time.Millisecond, time.Millisecond))
			_, err := c.TxsByBlock(context.Background(), 100)
			if (err == nil) != tc.wantOK || calls.Load() != tc.wantCalls {
				t.Fatalf("err %v after %d calls; want ok=%v after %d", err, calls.Load(), tc.wantOK, tc.wantCalls)
			}
			if tc.name == "future height" {
				if cur, ok := cosmosrest.IsFutureHeight(err); !ok || cur != 42 {
					t.Fatalf("IsFutureHeight(%v) = %d, %v", err, cur, ok)
				}
			}
		})
	}
}
