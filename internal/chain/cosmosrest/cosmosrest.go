// Package cosmosrest is rollgate's client of a Cosmos SDK node's REST gateway (grpc-gateway):
// txs by block, accounts and balances (optionally at a height, via x-cosmos-block-height), and
// the minievm, Move, Wasm, OPinit and IBC queries the indexer and router need. Documents the
// indexer stores verbatim (txs, accounts, bridges) are returned as raw JSON.
package cosmosrest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// HeightHeader carries the state height of a REST query.
const HeightHeader = "x-cosmos-block-height"

// PageLimit is the page size used when walking paginated lists.
const PageLimit = 100

// Error is a non-2xx REST answer: the gateway's {"code","message","details"} (Code is the gRPC
// status code: 5 NotFound, 2 Unknown, 3 InvalidArgument, ...), or a plain-text body.
type Error struct {
	HTTPStatus int
	Code       int
	Message    string
	Details    json.RawMessage
	Body       []byte
}

func (e *Error) Error() string {
	return fmt.Sprintf("REST HTTP %d (code %d): %s", e.HTTPStatus, e.Code, e.Message)
}

// gRPC codes worth retrying: the node is busy or restarting, not answering "no".
//
// A node gives its verdicts with other codes: the SDK carries an app error (a future or pruned
// height: "codespace sdk code 26", a revert, a missing resource) as 2 Unknown, a bad request
// as 3, an unknown tx or validator as 5, an unserved route as 12; the captured minievm,
// minimove and miniwasm nodes answer nothing else. 13 Internal is what grpc-gateway sends
// when it fails itself (marshalling an answer) and what a broken proxy or backend in front
// of the node answers — gRPC reserves it for broken invariants, not for "no" — so it is
// retried too. The transport still gives up after its attempts and returns the answer, so a
// node that keeps answering 13 fails as before, only later.
var retryableCodes = map[int]bool{4: true, 8: true, 10: true, 13: true, 14: true}

// IsNotFound reports a 404 or gRPC NotFound (unknown tx, unknown validator, unknown denom).
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.HTTPStatus == http.StatusNotFound || e.Code == 5)
}

var (
	futureRe    = regexp.MustCompile(`invalid height: requested height \d+ but height must not be less than 1 or greater than the current height (\d+)`)
	futureAnyRe = regexp.MustCompile(`cannot query with height in the future`)
)

// IsFutureHeight recognises "codespace sdk code 26: invalid height" answers for a height the node
// has not reached. current is the node's height when the message quotes it, else 0.
func IsFutureHeight(err error) (current int64, ok bool) {
	var e *Error
	if !errors.As(err, &e) {
		return 0, false
	}
	if m := futureRe.FindStringSubmatch(e.Message); m != nil {
		n, perr := strconv.ParseInt(m[1], 10, 64)
		return n, perr == nil
	}
	return 0, futureAnyRe.MatchString(e.Message)
}

// Client talks to one chain's REST gateway.
type Client struct {
	h *httpx.Client
}

// New returns a client over comma-separated REST base URLs.
func New(endpoints string, opts ...httpx.Option) (*Client, error) {
	h, err := httpx.New(endpoints, opts...)
	if err != nil {
		return nil, fmt.Errorf("cosmosrest: %w", err)
	}
	return &Client{h: h}, nil
}

// NewWithTransport wraps an existing transport.
func NewWithTransport(h *httpx.Client) *Client { return &Client{h: h} }

// Transport returns the underlying transport.
func (c *Client) Transport() *httpx.Client { return c.h }

// isFinal: a well-formed gateway error is the node's answer, unless its code says "busy".
func isFinal(_ int, body []byte) bool {
	var e struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
	}
	if jsonx.Unmarshal(body, &e) != nil || e.Code == nil {
		return false
	}
	return !retryableCodes[*e.Code]
}

func toError(err error) error {
	se, ok := httpx.AsStatus(err)
	if !ok {
		return err
	}
	e := &Error{HTTPStatus: se.Status, Body: se.Body}
	var gw struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	}
	if jsonx.Unmarshal(se.Body, &gw) == nil && (gw.Message != "" || gw.Code != 0) {
		e.Code, e.Message, e.Details = gw.Code, gw.Message, gw.Details
	} else {
		e.Message = strings.TrimSpace(string(se.Body))
	}
	return e
}

func heightHeader(h int64) http.Header {
	if h <= 0 {
		return nil
	}
	hdr := http.Header{}
	hdr.Set(HeightHeader, strconv.FormatInt(h, 10))
	return hdr
}

// Get fetches path (escaped, may carry a query) with extra query values at height (0 = latest)
// and decodes the JSON answer into out (*json.RawMessage keeps bytes). It is the escape hatch
// for queries without a helper.
func (c *Client) Get(ctx context.Context, path string, q url.Values, height int64, out any) error {
	body, err := c.get(ctx, path, q, height)
	if err != nil {
		return err
	}
	return decode(path, body, out)
}

// get returns the body of a GET, which ExpectJSON has validated.
func (c *Client) get(ctx context.Context, path string, q url.Values, height int64) ([]byte, error) {
	resp, err := c.h.Do(ctx, httpx.Request{Path: path, Query: q, Header: heightHeader(height), ExpectJSON: true, Final: isFinal})
	if err != nil {
		return nil, fmt.Errorf("cosmosrest GET %s: %w", path, toError(err))
	}
	return resp.Body, nil
}

// Post sends a JSON body to path at height and decodes the answer into out. It is for
// read-only queries (EVM calls), so the transport may hedge it.
func (c *Client) Post(ctx context.Context, path string, body any, height int64, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("cosmosrest POST %s: encoding: %w", path, err)
	}
	resp, err := c.h.Do(ctx, httpx.Request{Method: http.MethodPost, Path: path, Body: b, Header: heightHeader(height), ExpectJSON: true, Final: isFinal, Idempotent: true})
	if err != nil {
		return fmt.Errorf("cosmosrest POST %s: %w", path, toError(err))
	}
	return decode(path, resp.Body, out)
}

func decode(path string, body []byte, out any) error {
	if out == nil {
		return nil
	}
	if rm, ok := out.(*json.RawMessage); ok {
		*rm = append((*rm)[:0], body...)
		return nil
	}
	if err := jsonx.Unmarshal(body, out); err != nil {
		return fmt.Errorf("cosmosrest %s: decoding: %w", path, err)
	}
	return nil
}

// PageRequest selects one page of a list.
type PageRequest struct {
	Key        string // next_key of the previous page (base64)
	Offset     uint64
	Limit      uint64
	CountTotal bool
	Reverse    bool
}

func (p PageRequest) values() url.Values {
	q := url.Values{}
	limit := p.Limit
	if limit == 0 {
		limit = PageLimit
	}
	q.Set("pagination.limit", strconv.FormatUint(limit, 10))
	if p.Key != "" {
		q.Set("pagination.key", p.Key)
	} else if p.Offset > 0 {
		q.Set("pagination.offset", strconv.FormatUint(p.Offset, 10))
	}
	if p.CountTotal {
		q.Set("pagination.count_total", "true")
	}
	if p.Reverse {
		q.Set("pagination.reverse", "true")
	}
	return q
}

// PageResponse is the gateway's pagination block (next_key base64 or null; total a string).
type PageResponse struct {
	NextKey *string `json:"next_key"`
	Total   uint64  `json:"total,string"`
}

// Next returns the next page's key, "" at the end.
func (p *PageResponse) Next() string {
	if p == nil || p.NextKey == nil {
		return ""
	}
	return *p.NextKey
}

// BlockTxs is /cosmos/tx/v1beta1/txs/block/{h} with every page merged. Txs are the
// {body, auth_info, signatures} documents in block order, verbatim. GetBlockWithTxs carries no
// tx_responses; TxResponses is filled only if a node adds them.
type BlockTxs struct {
	Txs         []json.RawMessage
	TxResponses []json.RawMessage
	BlockID     json.RawMessage
	Block       json.RawMessage
	Total       uint64
}

type blockTxsPage struct {
	Txs         []json.RawMessage `json:"txs"`
	TxResponses []json.RawMessage `json:"tx_responses"`
	BlockID     json.RawMessage   `json:"block_id"`
	Block       json.RawMessage   `json:"block"`
	Pagination  *PageResponse     `json:"pagination"`
}

// decodeValid decodes a page that httpx has validated. A page is mostly its txs and
// tx_responses, which json.Unmarshal would scan twice (validation, then the skip of each
// element) to copy into json.RawMessages; they are cut out with jsonx instead, as sub-slices
// of the body, and only the other members go through json.Unmarshal. Whatever jsonx declines,
// or a shape a decode might read differently (a key in another case, a null element, a
// member that is not an array), goes through json.Unmarshal as before.
func (p *blockTxsPage) decodeValid(b []byte) error {
	rest := make([]byte, 0, 256)
	rest = append(rest, '{')
	fallback := false
	elements := func(v []byte, dst *[]json.RawMessage) {
		*dst = nil
		if string(v) == "null" {
			return
		}
		*dst = []json.RawMessage{}
		if !jsonx.Elements(v, func(e []byte) {
			fallback = fallback || string(e) == "null"
			*dst = append(*dst, e)
		}) {
			fallback = true
		}
	}
	ok := jsonx.Members(b, func(k, v []byte) {
		switch string(k) {
		case "txs":
			elements(v, &p.Txs)
		case "tx_responses":
			elements(v, &p.TxResponses)
		case "block_id":
			p.BlockID = v
		case "block":
			p.Block = v
		default:
			for _, f := range []string{"txs", "tx_responses", "block_id", "block"} {
				fallback = fallback || bytes.EqualFold(k, []byte(f))
			}
			rest = jsonx.AppendMember(rest, k, v)
		}
	})
	if ok && !fallback {
		if err := jsonx.Unmarshal(append(rest, '}'), p); err == nil {
			return nil
		}
	}
	*p = blockTxsPage{}
	return jsonx.Unmarshal(b, p)
}

// TxsByBlock walks the pages of a block's txs. It follows next_key; when a full page comes back
// without next_key while fewer than total txs have been read, it continues by offset (some node
// versions drop next_key on this endpoint).
func (c *Client) TxsByBlock(ctx context.Context, height int64) (*BlockTxs, error) {
	path := "/cosmos/tx/v1beta1/txs/block/" + strconv.FormatInt(height, 10)
	out := &BlockTxs{}
	page := PageRequest{Limit: PageLimit}
	for i := 0; ; i++ {
		body, err := c.get(ctx, path, page.values(), 0)
		if err != nil {
			return nil, err
		}
		var p blockTxsPage
		if err := p.decodeValid(body); err != nil {
			return nil, fmt.Errorf("cosmosrest %s: decoding: %w", path, err)
		}
		if i == 0 {
			out.BlockID, out.Block = p.BlockID, p.Block
		}
		out.Txs = append(out.Txs, p.Txs...)
		out.TxResponses = append(out.TxResponses, p.TxResponses...)
		if p.Pagination != nil && p.Pagination.Total > out.Total {
			out.Total = p.Pagination.Total
		}
		switch {
		case len(p.Txs) == 0:
			return out, nil
		case p.Pagination.Next() != "":
			page = PageRequest{Key: p.Pagination.Next(), Limit: PageLimit}
		case uint64(len(out.Txs)) < out.Total && len(p.Txs) >= PageLimit:
			page = PageRequest{Offset: uint64(len(out.Txs)), Limit: PageLimit}
		default:
			return out, nil
		}
		if i > 100000 {
			return nil, fmt.Errorf("cosmosrest %s: pagination does not end", path)
		}
	}
}

// TxResponse is a light view of a tx_response; Raw is the object verbatim.
type TxResponse struct {
	Height    int64           `json:"height,string"`
	TxHash    string          `json:"txhash"`
	Codespace string          `json:"codespace"`
	Code      uint32          `json:"code"`
	RawLog    string          `json:"raw_log"`
	GasWanted int64           `json:"gas_wanted,string"`
	GasUsed   int64           `json:"gas_used,string"`
	Timestamp string          `json:"timestamp"`
	Events    []Event         `json:"events"`
	Raw       json.RawMessage `json:"-"`
}

// Event is a tx_response event.
type Event struct {
	Type       string `json:"type"`
	Attributes []struct {
		Key   string `json:"key"`
		Value string `json:"value"`
		Index bool   `json:"index"`
	} `json:"attributes"`
}

// TxByHashResult is /cosmos/tx/v1beta1/txs/{hash}.
type TxByHashResult struct {
	Tx         json.RawMessage
	TxResponse *TxResponse
}

// TxByHash fetches one tx by its upper-case hex hash; an unknown hash satisfies IsNotFound.
func (c *Client) TxByHash(ctx context.Context, hash string) (*TxByHashResult, error) {
	var r struct {
		Tx         json.RawMessage `json:"tx"`
		TxResponse json.RawMessage `json:"tx_response"`
	}
	h := strings.ToUpper(strings.TrimPrefix(hash, "0x"))
	if err := c.Get(ctx, "/cosmos/tx/v1beta1/txs/"+url.PathEscape(h), nil, 0, &r); err != nil {
		return nil, err
	}
	out := &TxByHashResult{Tx: r.Tx, TxResponse: &TxResponse{}}
	if err := jsonx.Unmarshal(r.TxResponse, out.TxResponse); err != nil {
		return nil, fmt.Errorf("cosmosrest tx %s: decoding tx_response: %w", h, err)
	}
	out.TxResponse.Raw = r.TxResponse
	return out, nil
}

// LatestBlock is /cosmos/base/tendermint/v1beta1/blocks/latest.
type LatestBlock struct {
	BlockID  json.RawMessage
	Block    json.RawMessage
	SdkBlock json.RawMessage
	Height   int64
	ChainID  string
	Time     string
}

// LatestBlock fetches the chain head.
func (c *Client) LatestBlock(ctx context.Context) (*LatestBlock, error) {
	var r struct {
		BlockID  json.RawMessage `json:"block_id"`
		Block    json.RawMessage `json:"block"`
		SdkBlock json.RawMessage `json:"sdk_block"`
	}
	if err := c.Get(ctx, "/cosmos/base/tendermint/v1beta1/blocks/latest", nil, 0, &r); err != nil {
		return nil, err
	}
	var hdr struct {
		Header struct {
			ChainID string `json:"chain_id"`
			Height  int64  `json:"height,string"`
			Time    string `json:"time"`
		} `json:"header"`
	}
	src := r.SdkBlock
	if len(src) == 0 || string(src) == "null" {
		src = r.Block
	}
	if err := jsonx.Unmarshal(src, &hdr); err != nil {
		return nil, fmt.Errorf("cosmosrest blocks/latest: decoding header: %w", err)
	}
	return &LatestBlock{BlockID: r.BlockID, Block: r.Block, SdkBlock: r.SdkBlock,
		Height: hdr.Header.Height, ChainID: hdr.Header.ChainID, Time: hdr.Header.Time}, nil
}

// NodeInfo is /cosmos/base/tendermint/v1beta1/node_info.
type NodeInfo struct {
	DefaultNodeInfo    json.RawMessage `json:"default_node_info"`
	ApplicationVersion struct {
		Name      string `json:"name"`
		AppName   string `json:"app_name"`
		Version   string `json:"version"`
		GitCommit string `json:"git_commit"`
		GoVersion string `json:"go_version"`
	} `json:"application_version"`
	Network string `json:"-"`
}

// NodeInfo fetches the node and application versions.
func (c *Client) NodeInfo(ctx context.Context) (*NodeInfo, error) {
	var r NodeInfo
	if err := c.Get(ctx, "/cosmos/base/tendermint/v1beta1/node_info", nil, 0, &r); err != nil {
		return nil, err
	}
	var d struct {
		Network string `json:"network"`
	}
	if jsonx.Unmarshal(r.DefaultNodeInfo, &d) == nil {
		r.Network = d.Network
	}
	return &r, nil
}

// Coin is an SDK coin.
type Coin struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

// Balances lists every balance of addr at height (0 = latest), walking pages.
func (c *Client) Balances(ctx context.Context, addr string, height int64) ([]Coin, error) {
	var out []Coin
	page := PageRequest{}
	for {
		var r struct {
			Balances   []Coin        `json:"balances"`
			Pagination *PageResponse `json:"pagination"`
		}
		if err := c.Get(ctx, "/cosmos/bank/v1beta1/balances/"+url.PathEscape(addr), page.values(), height, &r); err != nil {
			return nil, err
		}
		out = append(out, r.Balances...)
		next := r.Pagination.Next()
		if next == "" || len(r.Balances) == 0 {
			return out, nil
		}
		page = PageRequest{Key: next}
	}
}

// Account is /cosmos/auth/v1beta1/accounts/{addr}: the account's Any JSON, verbatim.
func (c *Client) Account(ctx context.Context, addr string) (json.RawMessage, error) {
	var r struct {
		Account json.RawMessage `json:"account"`
	}
	if err := c.Get(ctx, "/cosmos/auth/v1beta1/accounts/"+url.PathEscape(addr), nil, 0, &r); err != nil {
		return nil, err
	}
	return r.Account, nil
}

// AccountsPage is one page of /cosmos/auth/v1beta1/accounts.
type AccountsPage struct {
	Accounts   []json.RawMessage `json:"accounts"`
	Pagination *PageResponse     `json:"pagination"`
}

// Accounts fetches one page of accounts at height (0 = latest).
func (c *Client) Accounts(ctx context.Context, page PageRequest, height int64) (*AccountsPage, error) {
	var r AccountsPage
	if err := c.Get(ctx, "/cosmos/auth/v1beta1/accounts", page.values(), height, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// AccountAddress extracts the address of an account Any (BaseAccount, ModuleAccount,
// ContractAccount and other wrappers with base_account).
func AccountAddress(acc json.RawMessage) string {
	var a struct {
		Address     string `json:"address"`
		BaseAccount *struct {
			Address string `json:"address"`
		} `json:"base_account"`
	}
	if jsonx.Unmarshal(acc, &a) != nil {
		return ""
	}
	if a.Address != "" {
		return a.Address
	}
	if a.BaseAccount != nil {
		return a.BaseAccount.Address
	}
	return ""
}

// ModuleAccount is an entry of /cosmos/auth/v1beta1/module_accounts.
type ModuleAccount struct {
	Type        string `json:"@type"`
	BaseAccount struct {
		Address       string `json:"address"`
		AccountNumber uint64 `json:"account_number,string"`
	} `json:"base_account"`
	Name        string          `json:"name"`
	Permissions []string        `json:"permissions"`
	Raw         json.RawMessage `json:"-"`
}

// ModuleAccounts lists the module accounts.
func (c *Client) ModuleAccounts(ctx context.Context) ([]ModuleAccount, error) {
	var r struct {
		Accounts []json.RawMessage `json:"accounts"`
	}
	if err := c.Get(ctx, "/cosmos/auth/v1beta1/module_accounts", nil, 0, &r); err != nil {
		return nil, err
	}
	out := make([]ModuleAccount, len(r.Accounts))
	for i, raw := range r.Accounts {
		if err := jsonx.Unmarshal(raw, &out[i]); err != nil {
			return nil, fmt.Errorf("cosmosrest module_accounts: %w", err)
		}
		out[i].Raw = raw
	}
	return out, nil
}

// OpchildValidator is /opinit/opchild/v1/validator/{valoper}'s validator.
type OpchildValidator struct {
	Moniker         string          `json:"moniker"`
	OperatorAddress string          `json:"operator_address"`
	ConsensusPubkey json.RawMessage `json:"consensus_pubkey"`
	ConsPower       int64           `json:"cons_power,string"`
}

// OpchildValidator fetches a rollup validator by operator address.
func (c *Client) OpchildValidator(ctx context.Context, valoper string) (*OpchildValidator, error) {
	var r struct {
		Validator OpchildValidator `json:"validator"`
	}
	if err := c.Get(ctx, "/opinit/opchild/v1/validator/"+url.PathEscape(valoper), nil, 0, &r); err != nil {
		return nil, err
	}
	return &r.Validator, nil
}

// OpchildValidators lists every rollup validator. The first page is asked without pagination
// parameters (the node's default page), as indexers do; later pages follow next_key.
func (c *Client) OpchildValidators(ctx context.Context) ([]OpchildValidator, error) {
	var out []OpchildValidator
	var q url.Values
	for {
		var r struct {
			Validators []OpchildValidator `json:"validators"`
			Pagination *PageResponse      `json:"pagination"`
		}
		if err := c.Get(ctx, "/opinit/opchild/v1/validators", q, 0, &r); err != nil {
			return nil, err
		}
		out = append(out, r.Validators...)
		if r.Pagination.Next() == "" || len(r.Validators) == 0 {
			return out, nil
		}
		q = url.Values{"pagination.key": {r.Pagination.Next()}}
	}
}

// EVMCallResult is minievm's /minievm/evm/v1/call answer.
type EVMCallResult struct {
	Response    string          `json:"response"`
	UsedGas     uint64          `json:"used_gas,string"`
	Logs        json.RawMessage `json:"logs"`
	TraceOutput string          `json:"trace_output"`
	Error       string          `json:"error"`
}

// ZeroSender is the sender rollytics uses for read-only EVM calls.
const ZeroSender = "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d"

// Call runs a read-only EVM call (POST /minievm/evm/v1/call) at height (0 = latest). A revert
// comes back as a 2xx with Error set, or as a gateway error, depending on the node.
func (c *Client) Call(ctx context.Context, sender, contract, inputHex, value string, height int64) (*EVMCallResult, error) {
	if value == "" {
		value = "0"
	}
	body := struct {
		Sender       string `json:"sender"`
		ContractAddr string `json:"contract_addr"`
		Input        string `json:"input"`
		Value        string `json:"value"`
	}{sender, contract, inputHex, value}
	var r EVMCallResult
	if err := c.Post(ctx, "/minievm/evm/v1/call", body, height, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ContractByDenom maps a bank denom to its ERC20 contract address (minievm).
func (c *Client) ContractByDenom(ctx context.Context, denom string) (string, error) {
	var r struct {
		Address string `json:"address"`
	}
	if err := c.Get(ctx, "/minievm/evm/v1/contracts/by_denom", url.Values{"denom": {denom}}, 0, &r); err != nil {
		return "", err
	}
	return r.Address, nil
}

// MoveResource is a Move resource; MoveResource is the JSON text {"type","data"} as the node
// renders it, RawBytes the BCS bytes.
type MoveResource struct {
	Address      string `json:"address"`
	StructTag    string `json:"struct_tag"`
	MoveResource string `json:"move_resource"`
	RawBytes     []byte `json:"raw_bytes"`
}

// Resource fetches a Move resource by struct tag at height (0 = latest).
func (c *Client) Resource(ctx context.Context, addr, structTag string, height int64) (*MoveResource, error) {
	var r struct {
		Resource MoveResource `json:"resource"`
	}
	path := "/initia/move/v1/accounts/" + url.PathEscape(addr) + "/resources/by_struct_tag"
	if err := c.Get(ctx, path, url.Values{"struct_tag": {structTag}}, height, &r); err != nil {
		return nil, err
	}
	return &r.Resource, nil
}

// WasmContractInfo is /cosmwasm/wasm/v1/contract/{addr}.
type WasmContractInfo struct {
	Address      string `json:"address"`
	ContractInfo struct {
		CodeID  uint64 `json:"code_id,string"`
		Creator string `json:"creator"`
		Admin   string `json:"admin"`
		Label   string `json:"label"`
		Created *struct {
			BlockHeight uint64 `json:"block_height,string"`
			TxIndex     uint64 `json:"tx_index,string"`
		} `json:"created"`
		IBCPortID string          `json:"ibc_port_id"`
		Extension json.RawMessage `json:"extension"`
	} `json:"contract_info"`
}

// ContractInfo fetches a Wasm contract's metadata at height (0 = latest).
func (c *Client) ContractInfo(ctx context.Context, addr string, height int64) (*WasmContractInfo, error) {
	var r WasmContractInfo
	if err := c.Get(ctx, "/cosmwasm/wasm/v1/contract/"+url.PathEscape(addr), nil, height, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Smart runs a Wasm smart query (queryJSON is the query message) at height (0 = latest) and
// returns its "data" verbatim. The message travels base64 in the path (padded, URL alphabet so
// no '/' can split the path; the gateway accepts both alphabets).
func (c *Client) Smart(ctx context.Context, addr string, queryJSON []byte, height int64) (json.RawMessage, error) {
	var r struct {
		Data json.RawMessage `json:"data"`
	}
	path := "/cosmwasm/wasm/v1/contract/" + url.PathEscape(addr) + "/smart/" + base64.URLEncoding.EncodeToString(queryJSON)
	if err := c.Get(ctx, path, nil, height, &r); err != nil {
		return nil, err
	}
	return r.Data, nil
}

// Bridge is an OPinit bridge as the L1 (ophost) reports it.
type Bridge struct {
	BridgeID     uint64          `json:"bridge_id,string"`
	BridgeAddr   string          `json:"bridge_addr"`
	BridgeConfig json.RawMessage `json:"bridge_config"`
}

// Bridges lists every OPinit bridge registered on this L1.
func (c *Client) Bridges(ctx context.Context) ([]Bridge, error) {
	var out []Bridge
	page := PageRequest{}
	for {
		var r struct {
			Bridges    []Bridge      `json:"bridges"`
			Pagination *PageResponse `json:"pagination"`
		}
		if err := c.Get(ctx, "/opinit/ophost/v1/bridges", page.values(), 0, &r); err != nil {
			return nil, err
		}
		out = append(out, r.Bridges...)
		if r.Pagination.Next() == "" || len(r.Bridges) == 0 {
			return out, nil
		}
		page = PageRequest{Key: r.Pagination.Next()}
	}
}

// Bridge fetches one bridge from the L1.
func (c *Client) Bridge(ctx context.Context, id uint64) (*Bridge, error) {
	var r Bridge
	if err := c.Get(ctx, "/opinit/ophost/v1/bridges/"+strconv.FormatUint(id, 10), nil, 0, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// TokenPair maps an L1 denom to its L2 denom on one bridge.
type TokenPair struct {
	L1Denom string `json:"l1_denom"`
	L2Denom string `json:"l2_denom"`
}

// TokenPairs lists a bridge's token pairs (L1 query).
func (c *Client) TokenPairs(ctx context.Context, bridgeID uint64) ([]TokenPair, error) {
	var out []TokenPair
	page := PageRequest{}
	path := "/opinit/ophost/v1/bridges/" + strconv.FormatUint(bridgeID, 10) + "/token_pairs"
	for {
		var r struct {
			TokenPairs []TokenPair   `json:"token_pairs"`
			Pagination *PageResponse `json:"pagination"`
		}
		if err := c.Get(ctx, path, page.values(), 0, &r); err != nil {
			return nil, err
		}
		out = append(out, r.TokenPairs...)
		if r.Pagination.Next() == "" || len(r.TokenPairs) == 0 {
			return out, nil
		}
		page = PageRequest{Key: r.Pagination.Next()}
	}
}

// BridgeInfo is the rollup's own view of its bridge (/opinit/opchild/v1/bridge_info).
type BridgeInfo struct {
	BridgeID     uint64          `json:"bridge_id,string"`
	BridgeAddr   string          `json:"bridge_addr"`
	L1ChainID    string          `json:"l1_chain_id"`
	L1ClientID   string          `json:"l1_client_id"`
	BridgeConfig json.RawMessage `json:"bridge_config"`
}

// OpchildBridgeInfo fetches the rollup's bridge info.
func (c *Client) OpchildBridgeInfo(ctx context.Context) (*BridgeInfo, error) {
	var r struct {
		BridgeInfo BridgeInfo `json:"bridge_info"`
	}
	if err := c.Get(ctx, "/opinit/opchild/v1/bridge_info", nil, 0, &r); err != nil {
		return nil, err
	}
	return &r.BridgeInfo, nil
}

// Channel is an IBC channel end (ibc-go IdentifiedChannel).
type Channel struct {
	State        string `json:"state"`
	Ordering     string `json:"ordering"`
	Counterparty struct {
		PortID    string `json:"port_id"`
		ChannelID string `json:"channel_id"`
	} `json:"counterparty"`
	ConnectionHops []string `json:"connection_hops"`
	Version        string   `json:"version"`
	PortID         string   `json:"port_id"`
	ChannelID      string   `json:"channel_id"`
}

// Channels lists every IBC channel of the chain.
func (c *Client) Channels(ctx context.Context) ([]Channel, error) {
	var out []Channel
	page := PageRequest{}
	for {
		var r struct {
			Channels   []Channel     `json:"channels"`
			Pagination *PageResponse `json:"pagination"`
		}
		if err := c.Get(ctx, "/ibc/core/channel/v1/channels", page.values(), 0, &r); err != nil {
			return nil, err
		}
		out = append(out, r.Channels...)
		if r.Pagination.Next() == "" || len(r.Channels) == 0 {
			return out, nil
		}
		page = PageRequest{Key: r.Pagination.Next()}
	}
}
