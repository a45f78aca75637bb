package engine

// Fees: the SDK's fee rules, in CheckTx and in the block alike, so a tx that CheckTx admits
// is not then refused for its fee in the block (and the reverse).
//
// The Cosmos SDK (v0.50, x/auth/ante/fee.go, DeductFeeDecorator, which Initia's chains run)
// first asks its TxFeeChecker, which compares the fee with the node's minimum gas prices in
// CheckTx only ("insufficient fees; got: … required: …", ErrInsufficientFee, code 13; the
// SDK's validator_tx_fee.go, and Initia's own checker, initia-labs/initia@79ad1c2:
// x/dynamic-fee/ante/fee.go, with the same code). Then checkDeductFee deducts the fee only
// when it is not zero: an all-zero fee such as `0uinit` is no fee at all. A non-zero fee must
// be valid coins (DeductFees: "invalid fee amount: …", code 13) that the payer holds
// (ErrInsufficientFunds, code 5), and both CheckTx and the block run this.

import (
	"fmt"
	"math/big"
	"sort"

	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// GasPrice is one entry of a node's minimum gas prices (app.toml's minimum-gas-prices).
type GasPrice struct {
	Denom string
	Price *big.Rat
}

// feePayer is who pays a tx's fee: the fee's payer when set, else the first signer.
func (c *Chain) feePayer(tx *Tx, a anted) []byte {
	if tx.Fee.Payer != "" {
		if p, err := ParseAddress(c.cfg.Bech32Prefix, tx.Fee.Payer); err == nil {
			return p
		}
	}
	return a.signers[0]
}

// checkTxFee is CheckTx's fee check: the minimum gas prices, then what the deduction would
// refuse, against the latest state (a real node's check state also holds the fees of the
// txs already in its mempool; the devnet's accounts are rich enough not to tell).
func (c *Chain) checkTxFee(v view, tx *Tx, payer []byte) *sim.CodedError {
	fee := tx.Fee.Amount
	if req := requiredFees(c.cfg.MinGasPrices, tx.Fee.GasLimit); len(req) > 0 && !anyGTE(fee, req) {
		return sdkErr(codeInsufficientFee, fmt.Sprintf("insufficient fees; got: %s required: %s: insufficient fee", CoinsString(fee), CoinsString(req)))
	}
	if coinsZero(fee) {
		return nil
	}
	if cerr := feeCoinsError(fee); cerr != nil {
		return cerr
	}
	for _, f := range fee {
		if bal := balanceIn(v, payer, f.Denom); bal.Cmp(f.Amount) < 0 {
			return sdkErr(codeInsufficientFunds, fmt.Sprintf("spendable balance %s%s is smaller than %s%s: insufficient funds: insufficient funds", bal, f.Denom, f.Amount, f.Denom))
		}
	}
	return nil
}

// feeCoinsError is DeductFees' validity check of a non-zero fee: every amount positive,
// denoms sorted without duplicates (sdk.Coins.IsValid).
func feeCoinsError(fee []Coin) *sim.CodedError {
	for i, f := range fee {
		if f.Amount == nil || f.Amount.Sign() <= 0 || f.Denom == "" || i > 0 && fee[i-1].Denom >= f.Denom {
			return sdkErr(codeInsufficientFee, fmt.Sprintf("invalid fee amount: %s: insufficient fee", coinsInOrder(fee)))
		}
	}
	return nil
}

// coinsZero is sdk.Coins.IsZero: no coin, or every amount zero.
func coinsZero(cs []Coin) bool {
	for _, c := range cs {
		if c.Amount != nil && c.Amount.Sign() != 0 {
			return false
		}
	}
	return true
}

// requiredFees is ceil(price × gas limit) per denom of the minimum gas prices, none when
// every price is zero (the SDK's special case: no minimum).
func requiredFees(prices []GasPrice, gas uint64) []Coin {
	var out []Coin
	zero := true
	for _, p := range prices {
		if p.Price != nil && p.Price.Sign() > 0 {
			zero = false
		}
	}
	if zero {
		return nil
	}
	g := new(big.Rat).SetInt(new(big.Int).SetUint64(gas))
	for _, p := range prices {
		amt := new(big.Rat).Mul(p.Price, g)
		q, r := new(big.Int).QuoRem(amt.Num(), amt.Denom(), new(big.Int))
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		out = append(out, Coin{Denom: p.Denom, Amount: q})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Denom < out[j].Denom })
	return out
}

// anyGTE is sdk.Coins.IsAnyGTE: some fee coin reaches the required amount of its denom.
func anyGTE(fee, req []Coin) bool {
	for _, r := range req {
		for _, f := range fee {
			if f.Denom == r.Denom && f.Amount != nil && f.Amount.Cmp(r.Amount) >= 0 {
				return true
			}
		}
	}
	return false
}

// coinsInOrder renders coins as given (CoinsString sorts them, hiding the disorder that made
// them invalid).
func coinsInOrder(cs []Coin) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += ","
		}
		amt := "<nil>"
		if c.Amount != nil {
			amt = c.Amount.String()
		}
		s += amt + c.Denom
	}
	return s
}
