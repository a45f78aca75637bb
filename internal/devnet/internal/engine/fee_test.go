package engine

import (
	"math/big"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
)

// TestFees: the fee rules of the SDK's DeductFeeDecorator (fee.go). CheckTx refuses what the
// node's minimum gas prices refuse (code 13) and what the deduction would refuse (an invalid
// non-zero fee: 13; a fee the payer does not hold: 5); a tx CheckTx admits pays its fee in the
// block, an all-zero fee (`0uinit`) paying nothing, as on a node without minimum gas prices.
func TestFees(t *testing.T) {
	coins := func(s ...string) []Coin {
		var out []Coin
		for i := 0; i < len(s); i += 2 {
			amt, _ := new(big.Int).SetString(s[i], 10)
			out = append(out, Coin{Denom: s[i+1], Amount: amt})
		}
		return out
	}
	minGas := []GasPrice{{Denom: "uinit", Price: big.NewRat(15, 1000)}} // the L1's base gas price, 0.015
	huge := new(big.Int).Lsh(big.NewInt(1), 100).String()
	cases := []struct {
		name   string
		prices []GasPrice
		fee    []Coin
		gas    uint64
		code   uint32 // CheckTx
		log    string // CheckTx log prefix
		paid   int64  // fee deducted in the block when admitted
	}{
		{"no fee, no minimum", nil, nil, 200000, 0, "", 0},
		{"0uinit, no minimum: no fee at all", nil, coins("0", "uinit"), 200000, 0, "", 0},
		{"0uinit, zero minimum", []GasPrice{{Denom: "uinit", Price: new(big.Rat)}}, coins("0", "uinit"), 200000, 0, "", 0},
		{"a fee, no minimum", nil, coins("100", "uinit"), 200000, 0, "", 100},
		{"a zero coin in a non-zero fee", nil, coins("0", "uinit", "5", "uusdc"), 200000, 13, "invalid fee amount: 0uinit,5uusdc: insufficient fee", 0},
		{"unsorted fee denoms", nil, coins("5", "uusdc", "5", "uinit"), 200000, 13, "invalid fee amount: 5uusdc,5uinit", 0},
		{"fee above the balance", nil, coins(huge, "uinit"), 200000, 5, "spendable balance 1000000000000000000000000uinit is smaller than " + huge + "uinit: insufficient funds: insufficient funds", 0},
		{"fee in a denom the payer lacks", nil, coins("1", "uusdc"), 200000, 5, "spendable balance 0uusdc is smaller than 1uusdc", 0},
		{"0uinit below the minimum", minGas, coins("0", "uinit"), 200000, 13, "insufficient fees; got: 0uinit required: 3000uinit: insufficient fee", 0},
		{"no fee below the minimum", minGas, nil, 200000, 13, "insufficient fees; got:  required: 3000uinit: insufficient fee", 0},
		{"one short of the minimum", minGas, coins("2999", "uinit"), 200000, 13, "insufficient fees; got: 2999uinit required: 3000uinit", 0},
		{"the minimum rounds up", minGas, coins("3000", "uinit"), 200001, 13, "insufficient fees; got: 3000uinit required: 3001uinit", 0},
		{"another denom does not count", minGas, coins("5000", "uusdc"), 200000, 13, "insufficient fees; got: 5000uusdc required: 3000uinit", 0},
		{"the minimum exactly", minGas, coins("3000", "uinit"), 200000, 0, "", 3000},
		{"above the minimum", minGas, coins("4000", "uinit"), 200000, 0, "", 4000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(Config{ChainID: "fees-1", Kind: KindL1, Seed: 1, NumAccounts: 2, MinGasPrices: tc.prices})
			if err != nil {
				t.Fatal(err)
			}
			k := c.Key(0)
			num, seq, _ := c.AccountState(k.Address())
			msg := &bankv1beta1.MsgSend{FromAddress: c.Accounts()[0].Bech32, ToAddress: c.Accounts()[1].Bech32,
				Amount: []*basev1beta1.Coin{{Denom: "uinit", Amount: "100"}}}
			raw, err := SignDirect(c.ChainID(), k, num, seq, []proto.Message{msg}, "", Fee{GasLimit: tc.gas, Amount: tc.fee})
			if err != nil {
				t.Fatal(err)
			}
			q0, _ := c.Query(0)
			before := q0.Balance(k.Address(), "uinit")
			r := c.BroadcastTxSync(raw)
			if r.Code != tc.code || !strings.HasPrefix(r.Log, tc.log) || tc.code != 0 && r.Codespace != "sdk" {
				t.Fatalf("CheckTx %d %q %q, want %d %q", r.Code, r.Codespace, r.Log, tc.code, tc.log)
			}
			b, err := c.ProduceBlock()
			if err != nil {
				t.Fatal(err)
			}
			if tc.code != 0 {
				if len(b.Results) != 0 {
					t.Fatalf("a tx CheckTx refused is in the block: %+v", b.Results)
				}
				return
			}
			if len(b.Results) != 1 || b.Results[0].Code != 0 {
				t.Fatalf("admitted by CheckTx, then in the block: %+v", b.Results)
			}
			q, _ := c.Query(0)
			if spent := new(big.Int).Sub(before, q.Balance(k.Address(), "uinit")); spent.Int64() != 100+tc.paid {
				t.Fatalf("payer spent %s, want 100 sent + %d fee", spent, tc.paid)
			}
		})
	}
}
