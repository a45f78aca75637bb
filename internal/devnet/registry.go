package devnet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rollgate/rollgate/internal/devnet/engine"
)

type api struct {
	Address string `json:"address"`
}

// feeToken is a chain.json fee_tokens entry. The devnet's engine enforces no minimum gas
// price: CheckTx and DeliverTx accept a tx with no fee at all, and any fee a tx does carry
// is only moved to the fee collector (engine.Chain.deliver). So every tier of every fee token
// is 0, fixed_min_gas_price included: the registry tells wallets and the router what the
// chains require (nothing) rather than a price they do not enforce.
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

func minitiaType(k engine.Kind) string {
	switch k {
	case engine.KindEVM:
		return "minievm"
	case engine.KindMove:
		return "minimove"
	case engine.KindWasm:
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
	if c.Spec.Kind == engine.KindL1 {
		meta["is_l1"] = true
	} else if t := minitiaType(c.Spec.Kind); t != "" {
		meta["minitia"] = map[string]string{"type": t, "version": c.Chain.Config().AppVersion}
	}
	for k, v := range c.Spec.Metadata {
		meta[k] = v
	}
	// Initia chains sign with eth_secp256k1 keys (coin type 60); a chain with plain Cosmos
	// keys (the external hub) signs with secp256k1 under the Cosmos coin type.
	keyAlgos, slip44 := []string{"ethsecp256k1", "secp256k1"}, 60
	if c.Chain.Config().CosmosKeys {
		keyAlgos, slip44 = []string{"secp256k1"}, 118
	}
	out := map[string]any{
		"$schema":       "../chain.schema.json",
		"chain_name":    c.Spec.name(),
		"pretty_name":   prettyName(c.Spec.name()),
		"chain_id":      c.Spec.ChainID,
		"bech32_prefix": c.Chain.Config().Bech32Prefix,
		"network_type":  "devnet",
		"apis":          apis,
		"key_algos":     keyAlgos,
		"slip44":        slip44,
		"fees":          map[string]any{"fee_tokens": []feeToken{{Denom: c.Chain.Config().FeeDenom}}},
		"metadata":      meta,
	}
	if c.EVM != nil {
		out["evm_chain_id"] = c.EVM.EVMChainID(c.Spec.ChainID)
	}
	return out
}

// prettyNames are display names for chain_names that do not read as a name once capitalised.
var prettyNames = map[string]string{"cosmoshub": "Cosmos Hub"}

func prettyName(s string) string {
	if s == "" {
		return s
	}
	if p, ok := prettyNames[s]; ok {
		return p + " Devnet"
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
		// Says where the token comes from: several chains mint their own "USDC" at genesis
		// (the L1 among them), next to the bridged vouchers of each other's.
		desc := fmt.Sprintf("%s issued at genesis on %s (%s), native to this devnet chain, not bridged",
			strings.ToUpper(display), prettyName(c.Spec.name()), c.Spec.ChainID)
		name := strings.ToUpper(display)
		if coin.Denom != cfg.FeeDenom {
			name += " (" + prettyName(c.Spec.name()) + ")" // "USDC (Initia Devnet)"
		}
		a := asset{Description: desc, Base: coin.Denom, Display: display, Name: name,
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
