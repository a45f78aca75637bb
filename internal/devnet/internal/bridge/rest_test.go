package bridge_test

import (
	"bytes"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/devnet/internal/bridge"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim/simtest"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestRESTShapes pins the gateway JSON of every bridge route on a freshly wired network
// (golden files; regenerate with -update and review).
func TestRESTShapes(t *testing.T) {
	specs := []bridge.ChainSpec{
		{ChainID: "initia-devnet-1", Kind: bridge.KindL1, Prefix: "init", NativeDenoms: []string{"uinit"}},
		{ChainID: "minimove-devnet-1", Kind: bridge.KindMinimove, Prefix: "init", Executor: "init1exec"},
	}
	w, err := bridge.Wire(specs, bridge.Options{BridgeOperator: "init1operator"})
	if err != nil {
		t.Fatal(err)
	}
	chains := map[string]*simtest.Chain{}
	for _, s := range specs {
		cm, _ := w.Chain(s.ChainID)
		c, err := simtest.Boot(s.ChainID, s.Prefix, time.Unix(1767225600, 0).UTC(), cm.Modules()...)
		if err != nil {
			t.Fatal(err)
		}
		chains[s.ChainID] = c
	}
	tests := []struct{ chain, path, golden string }{
		{"initia-devnet-1", "/ibc/core/channel/v1/channels", "channels.json"},
		{"initia-devnet-1", "/ibc/core/channel/v1/channels/channel-0/ports/transfer", "channel.json"},
		{"initia-devnet-1", "/ibc/core/channel/v1/channels/channel-9/ports/transfer", "channel_unknown.json"},
		{"initia-devnet-1", "/ibc/core/channel/v1/channels/channel-0/ports/transfer/client_state", "client_state.json"},
		{"initia-devnet-1", "/ibc/core/connection/v1/connections/connection-0", "connection.json"},
		{"minimove-devnet-1", "/ibc/apps/transfer/v1/denom_traces", "denom_traces_empty.json"},
		{"minimove-devnet-1", "/ibc/apps/transfer/v1/denom_traces/ABCD", "denom_trace_unknown.json"},
		{"initia-devnet-1", "/ibc/apps/transfer/v1/channels/channel-0/ports/transfer/escrow_address", "escrow_address.json"},
		{"initia-devnet-1", "/opinit/ophost/v1/bridges", "bridges.json"},
		{"initia-devnet-1", "/opinit/ophost/v1/bridges/1", "bridge.json"},
		{"initia-devnet-1", "/opinit/ophost/v1/bridges/7", "bridge_unknown.json"},
		{"initia-devnet-1", "/opinit/ophost/v1/bridges/1/token_pairs", "token_pairs_empty.json"},
		{"initia-devnet-1", "/opinit/ophost/v1/bridges/1/next_l1_sequence", "next_l1_sequence.json"},
		{"minimove-devnet-1", "/opinit/opchild/v1/bridge_info", "bridge_info.json"},
		{"minimove-devnet-1", "/opinit/opchild/v1/next_l2_sequence", "next_l2_sequence.json"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			rec := httptest.NewRecorder()
			chains[tt.chain].Mux().ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
			var buf bytes.Buffer
			buf.WriteString(rec.Result().Status + "\n")
			buf.Write(rec.Body.Bytes())
			buf.WriteByte('\n')
			testutil.Golden(t, "rest/"+tt.golden, buf.Bytes())
		})
	}
}
