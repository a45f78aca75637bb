package price

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// Mapping is the operator's mapping file: which oracle currency pair prices an asset whose
// symbol does not name it. Symbols maps a registry symbol to a pair ("WETH": "ETH/USD");
// Denoms maps one asset, by chain id and denom, to a pair, and wins over Symbols. A pair of
// "-" says the asset has no oracle price (its coingecko_id, if any, is still asked).
//
//	{"symbols": {"WETH": "ETH/USD"}, "denoms": {"initiation-2": {"ibc/AB12…": "ATOM/USD"}}}
type Mapping struct {
	Symbols map[string]string            `json:"symbols"`
	Denoms  map[string]map[string]string `json:"denoms"`
}

// NoPair is the mapping value that takes an asset off the oracle.
const NoPair = "-"

// LoadMapping reads and checks a mapping file. Unknown keys are an error, not a silently
// ignored setting; so is a pair not quoted in USD.
func LoadMapping(path string) (Mapping, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Mapping{}, err
	}
	var m Mapping
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Mapping{}, fmt.Errorf("price mapping %s: %w", path, err)
	}
	if err := m.check(); err != nil {
		return Mapping{}, fmt.Errorf("price mapping %s: %w", path, err)
	}
	return m, nil
}

func (m Mapping) check() error {
	for sym, p := range m.Symbols {
		if err := checkPair(p); err != nil {
			return fmt.Errorf("symbols.%s: %w", sym, err)
		}
	}
	for chain, ds := range m.Denoms {
		for d, p := range ds {
			if err := checkPair(p); err != nil {
				return fmt.Errorf("denoms.%s.%s: %w", chain, d, err)
			}
		}
	}
	return nil
}

func checkPair(p string) error {
	if p == NoPair {
		return nil
	}
	base, quote, ok := strings.Cut(p, "/")
	switch {
	case !ok || base == "" || strings.Contains(quote, "/"):
		return fmt.Errorf("%q is not a currency pair BASE/QUOTE", p)
	case !strings.EqualFold(quote, QuoteCurrency):
		return fmt.Errorf("%q is quoted in %s; only %s pairs give a dollar value", p, quote, QuoteCurrency)
	}
	return nil
}

// normalized is m with upper-case symbols and pairs, so a lookup is one map read.
func (m Mapping) normalized() Mapping {
	n := Mapping{Symbols: map[string]string{}, Denoms: map[string]map[string]string{}}
	for s, p := range m.Symbols {
		n.Symbols[strings.ToUpper(s)] = strings.ToUpper(p)
	}
	for c, ds := range m.Denoms {
		n.Denoms[c] = map[string]string{}
		for d, p := range ds {
			n.Denoms[c][d] = strings.ToUpper(p)
		}
	}
	return n
}

// pairFor is the pair a normalized mapping names for an asset ("" when it names none).
func (m Mapping) pairFor(chainID, denom, symbol string) string {
	if p := m.Denoms[chainID][denom]; p != "" {
		return p
	}
	if symbol == "" {
		return ""
	}
	return m.Symbols[strings.ToUpper(symbol)]
}
