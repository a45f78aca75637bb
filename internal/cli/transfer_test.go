package cli

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cosmos/btcutil/bech32"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/router/wire"
)

// TestTransferCommand runs `rollgate up`, then `rollgate route` and `rollgate transfer` against
// it as a user would: an L1 → rollup deposit and a rollup → rollup transfer through the L1, each
// followed to STATE_COMPLETED with one progress line per hop, and a refused transfer that exits
// non-zero.
func TestTransferCommand(t *testing.T) {
	u := startUp(t, t.TempDir(), 20*time.Second, "--interval", "200ms", "--bridge-traffic", "0", "--log-level", "error")
	defer u.stop(t)
	eps, out := u.eps, u.out
	// up funds and prints test accounts derived from the test mnemonic.
	if eps.Accounts == nil || eps.Accounts.Mnemonic != devnet.TestMnemonic || len(eps.Accounts.List) != 3 {
		t.Fatalf("endpoints.json accounts: %+v", eps.Accounts)
	}
	acc0 := eps.Accounts.List[0]
	if a := acc0.Addresses["initia-devnet-1"]; a == "" || !strings.Contains(out.String(), a) || len(acc0.Balances["initia-devnet-1"]) == 0 ||
		!strings.Contains(out.String(), "TEST ACCOUNTS") {
		t.Fatalf("test account 0 not printed: %+v\n%s", acc0, out)
	}
	// The devnet's first funded user (seed 1): one eth_secp256k1 key on every Initia chain.
	k, err := devnet.SeedKey(1, devnet.UserKeyIndex, false)
	if err != nil {
		t.Fatal(err)
	}
	from := hex.EncodeToString(k.Bytes())
	l2Move := denom.L2(2, "uinit")
	anvil, err := devnet.AnvilAccounts()
	if err != nil {
		t.Fatal(err)
	}
	anvilKey0 := anvil[0].PrivateKey
	// USDT composed into a deposit to minimove on arrival at the L1: the Anvil key's account
	// there, read before and after from the rollup's REST.
	usdtMove := denom.L2(2, "move/13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d")
	anvilMove, err := bech32.EncodeFromBase256("init", anvil[0].Address.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	moveREST := eps.Chains["minimove-devnet-1"].REST
	type gain struct {
		rest, addr, denom string
		amount            int64
	}
	gains := map[string]gain{"usdt_from_ethereum_to_rollup": {moveREST, anvilMove, usdtMove, 1_000_000}}
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"route", []string{"route", "--router", eps.Router, "--from-chain", "initia-devnet-1", "--from-denom", "uinit",
			"--to-chain", "minimove-devnet-1", "--to-denom", l2Move, "--amount", "1000"}, 0,
			[]string{"1000 uinit on initia-devnet-1 → 1000 " + l2Move, "1. [tx 0] opinit"}},
		// Signed with the printed mnemonic (account 0, the default path), as a wallet imports it.
		{"deposit", []string{"transfer", "--router", eps.Router, "--from", devnet.TestMnemonic, "--interval", "100ms", "--timeout", "2m",
			"--from-chain", "initia-devnet-1", "--from-denom", "uinit", "--to-chain", "minimove-devnet-1", "--to-denom", l2Move, "--amount", "1000"}, 0,
			[]string{"hop 1  opinit  initia-devnet-1 → minimove-devnet-1  OPINIT_TRANSFER_RECEIVED", "STATE_COMPLETED (STATE_COMPLETED_SUCCESS)"}},
		// The deposit's l2/ INIT back to L1 by the OPinit withdrawal: claimable, claimed by
		// transfer itself from the executor's proof, then completed.
		{"op_withdrawal_claimed", []string{"transfer", "--router", eps.Router, "--from", devnet.TestMnemonic, "--interval", "100ms", "--timeout", "2m",
			"--op-withdraw", "--from-chain", "minimove-devnet-1", "--from-denom", l2Move, "--to-chain", "initia-devnet-1", "--to-denom", "uinit", "--amount", "400"}, 0,
			[]string{"OPINIT_WITHDRAWAL_CLAIMABLE", "claim submitted", "OPINIT_TRANSFER_RECEIVED", "OPINIT_WITHDRAWAL_CLAIMED", "STATE_COMPLETED (STATE_COMPLETED_SUCCESS)"}},
		{"l2_to_l2_through_l1", []string{"transfer", "--router", eps.Router, "--from", from, "--interval", "100ms", "--timeout", "2m",
			"--from-chain", "minimove-devnet-1", "--from-denom", "uusdc", "--to-chain", "miniwasm-devnet-1",
			"--to-denom", "ibc/" + denom.IBCHash("transfer/channel-0/transfer/channel-1/uusdc"), "--amount", "2500"}, 0,
			[]string{"hop 1  ibc     minimove-devnet-1 → initia-devnet-1  TRANSFER_SUCCESS", "hop 2  ibc     initia-devnet-1 → miniwasm-devnet-1  TRANSFER_SUCCESS",
				"STATE_COMPLETED (STATE_COMPLETED_SUCCESS)"}},
		// USDT from the Ethereum chain to the L1 over LayerZero, signed with Anvil's first key:
		// an Ethereum tx (approve, then the OFT send paying the quoted fee), tracked to the L1.
		{"usdt_from_ethereum", []string{"transfer", "--router", eps.Router, "--from", anvilKey0, "--interval", "100ms", "--timeout", "2m",
			"--from-chain", "31337", "--from-denom", "0x5FbDB2315678afecb367f032d93F642f64180aa3", "--to-chain", "initia-devnet-1",
			"--to-denom", "move/13646f5188844c54306f38be5d74e3ad8d02a6b9d538ce540b30e5845b27712d", "--amount", "1000000"}, 0,
			[]string{"hop 1  layerzero 31337 → initia-devnet-1  LAYER_ZERO_TRANSFER_RECEIVED", "STATE_COMPLETED (STATE_COMPLETED_SUCCESS)"}},
		// USDT from Ethereum to the minimove rollup in one Ethereum tx, without --multi-tx: the
		// OFT send pays the L1's OPinit composer, whose lz_compose makes the deposit.
		{"usdt_from_ethereum_to_rollup", []string{"transfer", "--router", eps.Router, "--from", anvilKey0, "--interval", "100ms", "--timeout", "2m",
			"--from-chain", "31337", "--from-denom", "0x5FbDB2315678afecb367f032d93F642f64180aa3", "--to-chain", "minimove-devnet-1",
			"--to-denom", usdtMove, "--amount", "1000000"}, 0,
			[]string{"2 operation(s), 1 tx(s)", "hop 1  layerzero 31337 → initia-devnet-1  LAYER_ZERO_TRANSFER_RECEIVED",
				"hop 2  opinit  initia-devnet-1 → minimove-devnet-1  OPINIT_TRANSFER_RECEIVED", "STATE_COMPLETED (STATE_COMPLETED_SUCCESS)"}},
		// A two-tx route with --multi-tx: the withdrawal (claimed by transfer), then the IBC
		// transfer from the L1, sent once the first has completed.
		{"multi_tx_withdraw_then_ibc", []string{"transfer", "--router", eps.Router, "--from", devnet.TestMnemonic, "--interval", "100ms", "--timeout", "2m",
			"--multi-tx", "--op-withdraw", "--from-chain", "minimove-devnet-1", "--from-denom", l2Move, "--to-chain", "cosmoshub-devnet-1",
			"--to-denom", "ibc/" + denom.IBCHash("transfer/channel-0/uinit"), "--amount", "10"}, 0,
			[]string{"tx 1 of 2", "claim submitted", "tx 2 of 2", "hop 1  ibc     initia-devnet-1 → cosmoshub-devnet-1", "STATE_COMPLETED (STATE_COMPLETED_SUCCESS)"}},
		{"refused", []string{"transfer", "--router", eps.Router, "--from", from, "--to", "not-an-address",
			"--from-chain", "initia-devnet-1", "--from-denom", "uinit", "--to-chain", "minimove-devnet-1", "--to-denom", l2Move, "--amount", "1000"}, 1,
			[]string{"INVALID_ADDRESS"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before int64
			g, checkGain := gains[tc.name]
			if checkGain {
				before = restBalance(t, g.rest, g.addr, g.denom)
			}
			cenv, cout, cerr := testEnv(nil)
			code := run(context.Background(), cenv, tc.args)
			all := cout.String() + cerr.String()
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			if checkGain {
				if got := restBalance(t, g.rest, g.addr, g.denom) - before; got != g.amount {
					t.Errorf("%s received %d %s on the rollup, want %d", g.addr, got, g.denom, g.amount)
				} else {
					t.Logf("%s: +%d %s (REST)", g.addr, got, g.denom)
				}
			}
			t.Logf("\n%s", all)
		})
	}
}

// restBalance reads an account's balance of one denom from a chain's Cosmos REST.
func restBalance(t *testing.T, rest, addr, denom string) int64 {
	t.Helper()
	resp, err := http.Get(rest + "/cosmos/bank/v1beta1/balances/" + addr + "/by_denom?denom=" + url.QueryEscape(denom))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b struct {
		Balance struct {
			Amount string `json:"amount"`
		} `json:"balance"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("balance of %s on %s: %d %v", addr, rest, resp.StatusCode, err)
	}
	v, err := strconv.ParseInt(b.Balance.Amount, 10, 64)
	if err != nil {
		t.Fatalf("balance %q: %v", b.Balance.Amount, err)
	}
	return v
}

// TestWalletDefaultPath: `transfer --from <mnemonic>` signs for the address a wallet importing
// the mnemonic shows, the one `rollgate up` funds: coin type 60 (eth_secp256k1) on Initia
// chains, 118 (secp256k1) on Cosmos chains; --hd-path, when given, applies on every chain.
func TestWalletDefaultPath(t *testing.T) {
	chains := map[string]wire.Chain{"initia-devnet-1": {ChainID: "initia-devnet-1", Bech32Prefix: "init"},
		"cosmoshub-devnet-1": {ChainID: "cosmoshub-devnet-1", Bech32Prefix: "cosmos"}}
	cases := []struct {
		name, hdPath, chain, want string
	}{
		{"initia default is coin type 60", "", "initia-devnet-1", "init17w0adeg64ky0daxwd2ugyuneellmjgnxdtmpqz"},
		{"cosmos default is coin type 118", "", "cosmoshub-devnet-1", "cosmos15yk64u7zc9g9k2yr2wmzeva5qgwxps6yxj00e7"},
		{"explicit path on initia", "m/44'/60'/0'/0/1", "initia-devnet-1", "init1wzvhjux9rqfdcwspp37srdgwp5tac7wg9ql75y"},
		{"explicit path on cosmos", "m/44'/118'/0'/0/1", "cosmoshub-devnet-1", "cosmos1erxf3sa9q2j4vgseu7jq4a258ckmk7cy076t8z"},
		{"coin type 118 on initia is another account", "m/44'/118'/0'/0/0", "initia-devnet-1", "init1srqfdy5fwu2ek25kswwvpj647dl30nwfxggtz9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &wallet{secret: devnet.TestMnemonic, hdPath: c.hdPath, chains: chains}
			got, err := w.address(c.chain)
			if err != nil || got != c.want {
				t.Fatalf("address %s, %v; want %s", got, err, c.want)
			}
		})
	}
}
