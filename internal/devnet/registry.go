package devnet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rollgate/rollgate/internal/devnet/chain"
)

type api struct {
	Address string `json:"address"`
}

type feeToken struct {
	Denom            string  `json:"denom"`
	FixedMinGasPrice float64 `json:"fixed_min_gas_price"`
	LowGasPrice      float64 `json:"low_gas_price"`
	AverageGasPrice  float64 `json:"average_gas_price"`
	HighGasPrice     float64 `json:"high_gas_price"`
}

type denomUnit struct {
	Denom    string `json:"denom"`
	Exponent int    `json:"exponent"`
}

type asset struct {
	Description string            `json:"description"`
	DenomUnits  []denomUnit       `json:"denom_units"`
	Base        string            `json:"base"`
	Display     string            `json:"display"`
	Name        string            `json:"name"`
	Symbol      string            `json:"symbol"`
	TypeAsset   string            `json:"type_asset,omitempty"`
	Address     string            `json:"address,omitempty"`
	Images      []any             `json:"images"`
	LogoURIs    map[string]string `json:"logo_URIs"`
}

func minitiaType(k chain.Kind) string {
	switch k {
	case chain.KindEVM:
		return "minievm"
	case chain.KindMove:
		return "minimove"
	case chain.KindWasm:
		return "miniwasm"
	}
	return ""
}

// chainJSON renders the initia-registry chain.json of a chain.
func (n *Network) chainJSON(c *Chain) map[string]any {
	e := c.Endpoints
	apis := map[string]any{"rpc": []api{{e.RPC}}, "rest": []api{{e.REST}}, "grpc": []api{}}
	if e.JSONRPC != "" {
		apis["json-rpc"] = []api{{e.JSONRPC}}
	}
	meta := map[string]any{
		"op_denoms":    []string{},
		"ibc_channels": []any{},
		"assetlist":    "file://" + filepath.ToSlash(filepath.Join(c.Spec.name(), "assetlist.json")),
	}
	if c.Spec.Kind == chain.KindL1 {
		meta["is_l1"] = true
	} else if t := minitiaType(c.Spec.Kind); t != "" {
		meta["minitia"] = map[string]string{"type": t, "version": c.Chain.Config().AppVersion}
	}
	for k, v := range c.Spec.Metadata {
		meta[k] = v
	}
	out := map[string]any{
		"$schema":       "../chain.schema.json",
		"chain_name":    c.Spec.name(),
		"pretty_name":   prettyName(c.Spec.name()),
		"chain_id":      c.Spec.ChainID,
		"bech32_prefix": c.Chain.Config().Bech32Prefix,
		"network_type":  "devnet",
		"apis":          apis,
		"key_algos":     []string{"ethsecp256k1", "secp256k1"},
		"slip44":        60,
		"fees":          map[string]any{"fee_tokens": []feeToken{{Denom: c.Chain.Config().FeeDenom}}},
		"metadata":      meta,
	}
	if c.EVM != nil {
		out["evm_chain_id"] = c.EVM.EVMChainID(c.Spec.ChainID)
	}
	return out
}

func prettyName(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + " Devnet"
}

func (n *Network) assetlist(c *Chain) map[string]any {
	cfg := c.Chain.Config()
	var assets []asset
	for _, coin := range cfg.AccountCoins {
		exp := 6
		display := strings.TrimPrefix(coin.Denom, "u")
		if coin.Denom == "GAS" {
			exp, display = 18, "gas"
		}
		a := asset{Description: "devnet " + coin.Denom, Base: coin.Denom, Display: display, Name: strings.ToUpper(display),
			Symbol: strings.ToUpper(display), DenomUnits: []denomUnit{{coin.Denom, 0}, {display, exp}}, Images: []any{}, LogoURIs: map[string]string{}}
		if display == coin.Denom { // no micro prefix: a single unit
			a.DenomUnits = []denomUnit{{coin.Denom, 0}}
			if exp == 18 {
				a.DenomUnits = append(a.DenomUnits, denomUnit{"gas18", 18})
			}
		}
		if c.EVM != nil {
			a.TypeAsset = "erc20"
			a.Address = evmContract(c, coin.Denom)
		}
		assets = append(assets, a)
	}
	return map[string]any{"$schema": "../assetlist.schema.json", "chain_name": c.Spec.name(), "assets": assets}
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// WriteRegistry writes <dir>/<chain_name>/chain.json and assetlist.json for every chain.
func (n *Network) WriteRegistry(dir string) error {
	for _, c := range n.chains {
		if err := writeJSONFile(filepath.Join(dir, c.Spec.name(), "chain.json"), n.chainJSON(c)); err != nil {
			return fmt.Errorf("registry %s: %w", c.Spec.ChainID, err)
		}
		if err := writeJSONFile(filepath.Join(dir, c.Spec.name(), "assetlist.json"), n.assetlist(c)); err != nil {
			return fmt.Errorf("registry %s: %w", c.Spec.ChainID, err)
		}
	}
	return nil
}

// WriteEndpoints writes endpoints.json.
func (n *Network) WriteEndpoints(path string) error {
	return writeJSONFile(path, n.Endpoints())
}
