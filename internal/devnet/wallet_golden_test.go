package devnet_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/vm/move"
	"github.com/rollgate/rollgate/internal/testutil"
)

// TestWalletAnswersGolden pins, byte for byte, what the devnet answers the calls a wallet
// makes beyond the indexer: Connect's oracle (skip-mev/connect:proto/connect/oracle/v2/query.proto),
// the L1's gas prices (InterwovenKit src/data/fee.ts), a simulation as InterwovenKit sends it
// (src/data/tx.ts simulateTx), the latest output and migration_info
// (src/pages/bridge/op/data.ts), and a Move balance view (@initia/utils viewFunction). The
// network is seeded, on manual blocks from a fixed genesis, so every answer is reproducible.
func TestWalletAnswersGolden(t *testing.T) {
	cfg := devnet.DefaultConfig()
	cfg.Seed, cfg.ManualBlocks, cfg.GenesisTime, cfg.Accounts, cfg.BridgeTraffic = 9, true, genesis, 4, 0.6
	net, err := devnet.Start(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { net.Close() })
	if err := net.ProduceBlocks(t.Context(), 20); err != nil {
		t.Fatal(err)
	}
	l1, _ := net.Chain("initia-devnet-1")
	evm, _ := net.Chain("minievm-devnet-1")
	k := l1.Engine().Key(3)
	_, seq, _ := l1.Engine().AccountState(k.Address())
	send := &bankv1beta1.MsgSend{FromAddress: engine.Bech32("init", k.Address()), ToAddress: l1.Engine().Accounts()[2].Bech32,
		Amount: []*basev1beta1.Coin{{Denom: "uinit", Amount: "1000"}}}
	owner, meta := move.AccAddr(k.Address()), move.CoinMetadata("uinit")

	type call struct {
		name, method, url string
		height            int64
		body              any
	}
	calls := []call{
		{"oracle_tickers", "GET", l1.REST() + "/connect/oracle/v2/get_all_tickers", 0, nil},
		{"oracle_price_l1", "GET", l1.REST() + "/connect/oracle/v2/get_price?currency_pair=INIT/USD", 12, nil},
		{"oracle_prices_rollup", "GET", evm.REST() + "/connect/oracle/v2/get_prices?currency_pair_ids=INIT/USD&currency_pair_ids=USDC/USD", 12, nil},
		{"oracle_no_pair", "GET", l1.REST() + "/connect/oracle/v2/get_price?currency_pair=MIN/USD", 0, nil},
		{"oracle_mapping", "GET", l1.REST() + "/connect/oracle/v2/get_currency_pair_mapping_list", 0, nil},
		{"gas_prices", "GET", l1.REST() + "/initia/tx/v1/gas_prices", 0, nil},
		{"simulate", "POST", l1.REST() + "/cosmos/tx/v1beta1/simulate", 0, map[string]string{"tx_bytes": base64.StdEncoding.EncodeToString(kitSimulateTx(t, k.PubKey(), seq, send))}},
		{"latest_output", "GET", l1.REST() + "/opinit/ophost/v1/bridges/1/outputs?pagination.reverse=true&pagination.limit=1", 0, nil},
		{"migration_info", "GET", l1.REST() + "/opinit/ophost/v1/bridges/1/migration_info/by_l1_denom?l1_denom=uinit", 0, nil},
		{"view_balance", "POST", l1.REST() + "/initia/move/v1/accounts/0x1/modules/primary_fungible_store/view_functions/balance", 0,
			map[string]any{"type_args": []string{"0x1::fungible_asset::Metadata"}, "args": []string{base64.StdEncoding.EncodeToString(owner[:]), base64.StdEncoding.EncodeToString(meta[:])}}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			var body *bytes.Reader
			if c.body != nil {
				b, _ := json.Marshal(c.body)
				body = bytes.NewReader(b)
			} else {
				body = bytes.NewReader(nil)
			}
			req, _ := http.NewRequestWithContext(t.Context(), c.method, c.url, body)
			if c.height > 0 {
				req.Header.Set("x-cosmos-block-height", strconv.FormatInt(c.height, 10))
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(resp.Body)
			testutil.Golden(t, "wallet/"+c.name+".txt", fmt.Appendf(nil, "%d\n%s\n", resp.StatusCode, buf.Bytes()))
		})
	}
}
