package cosmosrest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
)

// stub answers by exact request URI and records the requests.
func stub(t *testing.T, answers map[string]string) (*cosmosrest.Client, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.RequestURI()+" h="+r.Header.Get(cosmosrest.HeightHeader))
		mu.Unlock()
		body, ok := answers[r.URL.RequestURI()]
		if !ok {
			w.WriteHeader(http.StatusNotImplemented)
			w.Write([]byte(`{"code":12,"message":"Not Implemented","details":[]}`))
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	c, err := cosmosrest.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), seen...) }
}

func TestOPinitAndIBCRoutes(t *testing.T) {
	ctx := context.Background()
	c, seen := stub(t, map[string]string{
		"/opinit/ophost/v1/bridges?pagination.limit=100":                         `{"bridges":[{"bridge_id":"1","bridge_addr":"init1a","bridge_config":{"proposer":"init1p"}}],"pagination":{"next_key":"Ag==","total":"2"}}`,
		"/opinit/ophost/v1/bridges?pagination.key=Ag%3D%3D&pagination.limit=100": `{"bridges":[{"bridge_id":"2","bridge_addr":"init1b","bridge_config":{}}],"pagination":{"next_key":null,"total":"2"}}`,
		"/opinit/ophost/v1/bridges/2":                                            `{"bridge_id":"2","bridge_addr":"init1b","bridge_config":{"finalization_period":"60s"}}`,
		"/opinit/ophost/v1/bridges/2/token_pairs?pagination.limit=100":           `{"token_pairs":[{"l1_denom":"uinit","l2_denom":"l2/abc"}],"pagination":{"next_key":null,"total":"1"}}`,
		"/opinit/opchild/v1/bridge_info":                                         `{"bridge_info":{"bridge_id":"2","bridge_addr":"init1b","l1_chain_id":"l1-1","l1_client_id":"07-tendermint-0","bridge_config":{}}}`,
		"/ibc/core/channel/v1/channels?pagination.limit=100":                     `{"channels":[{"state":"STATE_OPEN","ordering":"ORDER_UNORDERED","counterparty":{"port_id":"transfer","channel_id":"channel-3"},"connection_hops":["connection-0"],"version":"ics20-1","port_id":"transfer","channel_id":"channel-0"}],"pagination":{"next_key":null,"total":"1"},"height":{"revision_number":"0","revision_height":"5"}}`,
		"/cosmos/auth/v1beta1/accounts/init1x":                                   `{"account":{"@type":"/cosmos.auth.v1beta1.BaseAccount","address":"init1x","pub_key":null,"account_number":"3","sequence":"9"}}`,
	})
	bridges, err := c.Bridges(ctx)
	if err != nil || len(bridges) != 2 || bridges[1].BridgeID != 2 || bridges[0].BridgeAddr != "init1a" {
		t.Fatalf("Bridges = %+v, %v", bridges, err)
	}
	b, err := c.Bridge(ctx, 2)
	if err != nil || b.BridgeID != 2 || string(b.BridgeConfig) != `{"finalization_period":"60s"}` {
		t.Fatalf("Bridge = %+v, %v", b, err)
	}
	pairs, err := c.TokenPairs(ctx, 2)
	if err != nil || len(pairs) != 1 || pairs[0] != (cosmosrest.TokenPair{L1Denom: "uinit", L2Denom: "l2/abc"}) {
		t.Fatalf("TokenPairs = %+v, %v", pairs, err)
	}
	info, err := c.OpchildBridgeInfo(ctx)
	if err != nil || info.BridgeID != 2 || info.L1ChainID != "l1-1" || info.L1ClientID != "07-tendermint-0" {
		t.Fatalf("OpchildBridgeInfo = %+v, %v", info, err)
	}
	chans, err := c.Channels(ctx)
	if err != nil || len(chans) != 1 || chans[0].Counterparty.ChannelID != "channel-3" || chans[0].State != "STATE_OPEN" {
		t.Fatalf("Channels = %+v, %v", chans, err)
	}
	acc, err := c.Account(ctx, "init1x")
	if err != nil || cosmosrest.AccountAddress(acc) != "init1x" {
		t.Fatalf("Account = %s, %v", acc, err)
	}
	_, err = c.Balances(ctx, "init1x", 12)
	var re *cosmosrest.Error
	if !errorsAs(err, &re) || re.HTTPStatus != 501 || re.Code != 12 {
		t.Fatalf("unimplemented route: %v", err)
	}
	got := seen()
	if last := got[len(got)-1]; last != "/cosmos/bank/v1beta1/balances/init1x?pagination.limit=100 h=12" {
		t.Fatalf("height header not sent: %q", last)
	}
}
