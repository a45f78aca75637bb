package comet_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/comet"
)

// recorder answers every request with result and records what was asked.
func recorder(t *testing.T, result string) (*comet.Client, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string // written before the answer is sent, read after it is received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+string(b))
		mu.Unlock()
		w.Write([]byte(`{"jsonrpc":"2.0","id":-1,"result":` + result + `}`))
	}))
	t.Cleanup(srv.Close)
	c, err := comet.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c, &seen
}

func TestRequestShapes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		result string
		call   func(c *comet.Client) error
		want   string
	}{
		{"tx_search", `{"txs":[{"hash":"AB","height":"3","index":0,"tx_result":{"code":0,"data":null,"log":"","info":"","gas_wanted":"1","gas_used":"1","events":[],"codespace":""},"tx":"AQI="}],"total_count":"1"}`,
			func(c *comet.Client) error {
				r, err := c.TxSearch(ctx, "send_packet.packet_sequence='4'", 1, 30, "asc")
				if err == nil && (r.TotalCount != 1 || r.Txs[0].Height != 3 || string(r.Txs[0].Tx) != "\x01\x02") {
					t.Errorf("tx_search decoded %+v", r)
				}
				return err
			}, `GET /tx_search?order_by=%22asc%22&page=1&per_page=30&query=%22send_packet.packet_sequence%3D%274%27%22 `},
		{"abci_query", `{"response":{"code":0,"log":"","info":"","index":"0","key":null,"value":"CgA=","proof_ops":null,"height":"7","codespace":""}}`,
			func(c *comet.Client) error {
				r, err := c.ABCIQuery(ctx, "/cosmos.bank.v1beta1.Query/Balance", []byte{0x0a, 0x01}, 7, false)
				if err == nil && (r.Response.Height != 7 || string(r.Response.Value) != "\x0a\x00") {
					t.Errorf("abci_query decoded %+v", r)
				}
				return err
			}, `GET /abci_query?data=0x0a01&height=7&path=%22%2Fcosmos.bank.v1beta1.Query%2FBalance%22 `},
		{"blockchain", `{"last_height":"9","block_metas":[]}`,
			func(c *comet.Client) error {
				r, err := c.Blockchain(ctx, 1, 9)
				if err == nil && r.LastHeight != 9 {
					t.Errorf("blockchain decoded %+v", r)
				}
				return err
			}, `GET /blockchain?maxHeight=9&minHeight=1 `},
		{"tx hash normalised", `{"hash":"ABCD","height":"1","index":0,"tx_result":{"code":0,"data":null,"log":"","info":"","gas_wanted":"0","gas_used":"0","events":[],"codespace":""},"tx":null}`,
			func(c *comet.Client) error { _, err := c.Tx(ctx, "abcd", false); return err }, `GET /tx?hash=0xABCD `},
		{"latest block", `{"block_id":{"hash":"","parts":{"total":0,"hash":""}},"block":null}`,
			func(c *comet.Client) error { _, err := c.Block(ctx, 0); return err }, `GET /block `},
		{"broadcast", `{"code":0,"data":"","log":"","codespace":"","hash":"0102"}`,
			func(c *comet.Client) error {
				r, err := c.BroadcastTxSync(ctx, []byte{1, 2, 3})
				if err == nil && r.Hash.String() != "0102" {
					t.Errorf("broadcast decoded %+v", r)
				}
				return err
			}, `POST / {"jsonrpc":"2.0","id":1,"method":"broadcast_tx_sync","params":{"tx":"AQID"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, seen := recorder(t, tc.result)
			if err := tc.call(c); err != nil {
				t.Fatal(err)
			}
			if len(*seen) != 1 || (*seen)[0] != tc.want {
				t.Fatalf("requests %q, want %q", *seen, tc.want)
			}
		})
	}
	c, _ := recorder(t, `{}`)
	if _, err := c.Tx(ctx, "not-hex", false); err == nil {
		t.Error("Tx accepted a non-hex hash")
	}
}
