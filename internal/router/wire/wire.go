// Package wire holds the request and response bodies of the router API as they go over the
// wire (the Skip Go API v2 and Initia router endpoints, with their JSON names): the server
// (internal/router/api) decodes and writes them, and the Go client (internal/router/client)
// sends and reads them, without the client depending on the server.
package wire

import (
	"github.com/rollgate/rollgate/internal/router/msgs"
	"github.com/rollgate/rollgate/internal/router/route"
)

// OPHookRequest is the /op-hook body: the six fields InterwovenKit and initia.js send
// (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/bridge/data/tx.ts:355-366,
// initia-labs/initia.js@a60dc6b:src/bridge/router-client.ts:221-232), which is all the wrap hook
// (approve + toLocal, msgs.WrapHook) needs. amount_in is a rollgate extension for its own hooks
// that continue the route over IBC after the deposit: ICS-20 transfers an exact coin, so such
// a hook is signed for the route's amount. Those routes are offered only with
// allow_amount_hooks (on /route and here); with it and without amount_in the answer is 400
// OP_HOOK_AMOUNT_REQUIRED whose info says what to send.
type OPHookRequest struct {
	SourceAddress      string `json:"source_address"`
	SourceAssetChainID string `json:"source_asset_chain_id"`
	SourceAssetDenom   string `json:"source_asset_denom"`
	DestAddress        string `json:"dest_address"`
	DestAssetChainID   string `json:"dest_asset_chain_id"`
	DestAssetDenom     string `json:"dest_asset_denom"`
	AmountIn           string `json:"amount_in"`
	// AllowAmountHooks: the hook is for a route asked with allow_amount_hooks (route.Request),
	// so it may be an IBC transfer or withdrawal on the rollup, built for amount_in.
	AllowAmountHooks bool `json:"allow_amount_hooks,omitempty"`
}

// OPHookResponse is the /op-hook response.
type OPHookResponse struct {
	ChainID string           `json:"chain_id"`
	Hook    []msgs.CosmosMsg `json:"hook"`
}

// MsgsDirectRequest is the /msgs_direct body: a route request plus addresses by chain.
type MsgsDirectRequest struct {
	route.Request
	ChainIDsToAddresses      map[string]string  `json:"chain_ids_to_addresses"`
	SlippageTolerancePercent string             `json:"slippage_tolerance_percent"`
	TimeoutSeconds           string             `json:"timeout_seconds"`
	SignedOPHook             *msgs.SignedOPHook `json:"signed_op_hook"`
}

// MsgsDirectResponse is the /msgs_direct response.
type MsgsDirectResponse struct {
	Msgs          []msgs.Msg  `json:"msgs"`
	Txs           []msgs.Tx   `json:"txs"`
	Route         route.Route `json:"route"`
	MinAmountOut  string      `json:"min_amount_out"`
	EstimatedFees []route.Fee `json:"estimated_fees"`
}

// Chain is the /v2/info/chains record (Skip Chain + Initia's rpc/rest/evm_fee_asset).
type Chain struct {
	ChainName           string              `json:"chain_name"`
	ChainID             string              `json:"chain_id"`
	PFMEnabled          bool                `json:"pfm_enabled"`
	CosmosModuleSupport CosmosModuleSupport `json:"cosmos_module_support"`
	SupportsMemo        bool                `json:"supports_memo"`
	LogoURI             *string             `json:"logo_uri"`
	Bech32Prefix        string              `json:"bech32_prefix"`
	FeeAssets           []FeeAsset          `json:"fee_assets"`
	ChainType           string              `json:"chain_type"`
	IBCCapabilities     IBCCapabilities     `json:"ibc_capabilities"`
	IsTestnet           bool                `json:"is_testnet"`
	PrettyName          string              `json:"pretty_name"`
	RPC                 string              `json:"rpc,omitempty"`
	REST                string              `json:"rest,omitempty"`
	EVMFeeAsset         *EVMFeeAsset        `json:"evm_fee_asset,omitempty"`
	// Hidden is the registry entry's `hidden` flag (false when it has none): InterwovenKit
	// leaves hidden chains out of its picker (initia-labs/interwovenkit@913e480:
	// packages/interwovenkit-react/src/pages/bridge/SelectChainAsset.tsx:36).
	Hidden bool `json:"hidden"`
}

// CosmosModuleSupport lists optional Cosmos modules.
type CosmosModuleSupport struct {
	Authz    bool `json:"authz"`
	Feegrant bool `json:"feegrant"`
}

// IBCCapabilities lists IBC middleware capabilities.
type IBCCapabilities struct {
	CosmosPFM       bool `json:"cosmos_pfm"`
	CosmosIBCHooks  bool `json:"cosmos_ibc_hooks"`
	CosmosMemo      bool `json:"cosmos_memo"`
	CosmosAutopilot bool `json:"cosmos_autopilot"`
}

// FeeAsset is a gas token with price tiers.
type FeeAsset struct {
	Denom    string    `json:"denom"`
	GasPrice *GasPrice `json:"gas_price"`
}

// GasPrice is a gas price tier set (decimal strings).
type GasPrice struct {
	Low     string `json:"low"`
	Average string `json:"average"`
	High    string `json:"high"`
}

// EVMFeeAsset describes the native coin of an EVM chain.
type EVMFeeAsset struct {
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
}

// BalancesRequest is the /v2/info/balances body.
type BalancesRequest struct {
	Chains map[string]struct {
		Address string   `json:"address"`
		Denoms  []string `json:"denoms"`
	} `json:"chains"`
}

// DenomBalance is one balance entry.
type DenomBalance struct {
	Amount          string     `json:"amount"`
	Decimals        *int       `json:"decimals,omitempty"`
	FormattedAmount string     `json:"formatted_amount"`
	Price           *string    `json:"price,omitempty"`
	ValueUSD        *string    `json:"value_usd,omitempty"`
	Error           *ErrorInfo `json:"error,omitempty"`
	// PriceInfo says where price comes from and how old it is, or why it is absent (a
	// rollgate extension; chain and denom are the entry's own, so left out).
	PriceInfo *route.PriceInfo `json:"price_info,omitempty"`
}

// ErrorInfo is a per-entry error.
type ErrorInfo struct {
	Message string `json:"message"`
}

// AssetsFromSourceRequest is the /v2/fungible/assets_from_source body.
type AssetsFromSourceRequest struct {
	SourceAssetDenom   string `json:"source_asset_denom"`
	SourceAssetChainID string `json:"source_asset_chain_id"`
	AllowMultiTx       bool   `json:"allow_multi_tx"`
}

// TrackRequest is the /v2/tx/track body.
type TrackRequest struct {
	TxHash  string `json:"tx_hash"`
	ChainID string `json:"chain_id"`
}

// SubmitRequest is the /v2/tx/submit body: a signed TxRaw in base64.
type SubmitRequest struct {
	Tx      string `json:"tx"`
	ChainID string `json:"chain_id"`
}
