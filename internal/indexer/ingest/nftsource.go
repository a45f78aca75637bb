package ingest

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
)

// evmCallSender is the sender of rollytics' read-only calls (the 20-byte address 0x…01).
const evmCallSender = "init1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqpqr5e3d"

// definiteCodes are the gRPC codes of a gateway error that is the chain's verdict on the
// query: Unknown (how the gateway carries an app error: a revert, a Wasm contract error, a
// missing Move resource), InvalidArgument and NotFound. Anything else (Internal, Unavailable,
// a deadline, a proxy's 502, a truncated body) may pass, so it is retried with the height.
var definiteCodes = map[int]bool{2: true, 3: true, 5: true}

// queryErr sorts a REST failure: a future height waits, a verdict is ErrQueryFailed, the rest
// is transport.
func queryErr(err error) error {
	if err == nil {
		return nil
	}
	if f := future(err); errors.Is(f, ErrFutureHeight) {
		return f
	}
	var e *cosmosrest.Error
	if errors.As(err, &e) && definiteCodes[e.Code] {
		return fmt.Errorf("%w: %w", ErrQueryFailed, err)
	}
	return err
}

// EVMCall implements NFTQuerier through REST /minievm/evm/v1/call, as rollytics.
func (s *ClientSource) EVMCall(ctx context.Context, height int64, contract string, input []byte) ([]byte, error) {
	var r struct {
		Response string `json:"response"`
		Error    string `json:"error"`
	}
	body := map[string]string{"sender": evmCallSender, "contract_addr": contract, "input": "0x" + hex.EncodeToString(input), "value": "0"}
	if err := retryQuery(ctx, func() error { return queryErr(s.rest.Post(ctx, "/minievm/evm/v1/call", body, height, &r)) }); err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, fmt.Errorf("%w: call %s: %s", ErrQueryFailed, contract, r.Error)
	}
	out, err := hex.DecodeString(strings.TrimPrefix(r.Response, "0x"))
	if err != nil {
		return nil, fmt.Errorf("%w: call %s: response %q", ErrQueryFailed, contract, r.Response)
	}
	return out, nil
}

// MoveResource implements NFTQuerier.
func (s *ClientSource) MoveResource(ctx context.Context, height int64, addr, structTag string) (json.RawMessage, error) {
	var r struct {
		Resource struct {
			MoveResource string `json:"move_resource"`
		} `json:"resource"`
	}
	if err := retryQuery(ctx, func() error {
		return queryErr(s.rest.Get(ctx, "/initia/move/v1/accounts/"+url.PathEscape(addr)+"/resources/by_struct_tag",
			url.Values{"struct_tag": {structTag}}, height, &r))
	}); err != nil {
		return nil, err
	}
	return json.RawMessage(r.Resource.MoveResource), nil
}

// WasmSmart implements NFTQuerier; the query goes base64url-encoded in the path, as rollytics.
func (s *ClientSource) WasmSmart(ctx context.Context, height int64, contract string, query []byte) (json.RawMessage, error) {
	var r struct {
		Data json.RawMessage `json:"data"`
	}
	path := "/cosmwasm/wasm/v1/contract/" + url.PathEscape(contract) + "/smart/" + base64.URLEncoding.EncodeToString(query)
	if err := retryQuery(ctx, func() error { return queryErr(s.rest.Get(ctx, path, nil, height, &r)) }); err != nil {
		return nil, err
	}
	return r.Data, nil
}

// WasmCreator implements NFTQuerier.
func (s *ClientSource) WasmCreator(ctx context.Context, height int64, contract string) (string, error) {
	var r struct {
		ContractInfo struct {
			Creator string `json:"creator"`
		} `json:"contract_info"`
	}
	if err := retryQuery(ctx, func() error {
		return queryErr(s.rest.Get(ctx, "/cosmwasm/wasm/v1/contract/"+url.PathEscape(contract), nil, height, &r))
	}); err != nil {
		return "", err
	}
	return r.ContractInfo.Creator, nil
}

var _ NFTQuerier = (*ClientSource)(nil)
