package price

import (
	"math/big"
	"strings"
)

// USDDecimals is how many decimals a dollar value is given with: the Skip widget and
// InterwovenKit show cents, and Skip's own answers carry two (usd_amount_in '2000.01' in
// Skip's OpenAPI document).
const USDDecimals = 2

// maxScale bounds the decimals a price is printed with when its source gave no exact scale.
const maxScale = 18

var ten = big.NewInt(10)

func pow10(n int) *big.Int { return new(big.Int).Exp(ten, big.NewInt(int64(n)), nil) }

// Value is amount (base units, a decimal integer string) × usd ÷ 10^decimals, exact. ok is
// false for an amount that is not a non-negative integer.
func Value(amount string, decimals int, usd *big.Rat) (*big.Rat, bool) {
	if usd == nil || decimals < 0 {
		return nil, false
	}
	a, ok := new(big.Int).SetString(amount, 10)
	if !ok || a.Sign() < 0 {
		return nil, false
	}
	v := new(big.Rat).SetFrac(a, pow10(decimals))
	return v.Mul(v, usd), true
}

// FormatUSD renders a dollar value with USDDecimals, halves rounded away from zero
// ("12.345" → "12.35").
func FormatUSD(v *big.Rat) string { return v.FloatString(USDDecimals) }

// FormatDecimal renders r exactly when it has at most maxScale decimals (rounded at maxScale
// otherwise), without trailing zeros: "0.512300" → "0.5123", "3.000" → "3".
func FormatDecimal(r *big.Rat) string {
	s := r.FloatString(scaleOf(r))
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// scaleOf is the fewest decimals that print r exactly, at most maxScale.
func scaleOf(r *big.Rat) int {
	d := new(big.Int).Set(r.Denom())
	m := new(big.Int)
	for k := 0; k < maxScale; k++ {
		if d.Cmp(big.NewInt(1)) == 0 {
			return k
		}
		// The denominator of a reduced decimal fraction divides a power of ten; multiplying
		// the fraction by ten removes one factor 2 and one 5 when present.
		if m.Mod(d, ten).Sign() == 0 {
			d.Quo(d, ten)
		} else if m.Mod(d, big.NewInt(2)).Sign() == 0 {
			d.Quo(d, big.NewInt(2))
		} else if m.Mod(d, big.NewInt(5)).Sign() == 0 {
			d.Quo(d, big.NewInt(5))
		} else {
			return maxScale
		}
	}
	return maxScale
}

// Float is r as the nearest float64, for the clients whose schema has a JSON number
// (Celatone's and InterwovenKit's price, Minity's value); the exact value stays the string.
func Float(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}
