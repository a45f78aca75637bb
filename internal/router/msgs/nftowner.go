package msgs

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/redact"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// The ERC-721 calls /nft makes: the transfer it emits and the owner query it checks first.
const nftABI = `[
{"type":"function","name":"transferFrom","stateMutability":"nonpayable","inputs":[{"name":"from","type":"address"},{"name":"to","type":"address"},{"name":"tokenId","type":"uint256"}],"outputs":[]},
{"type":"function","name":"ownerOf","stateMutability":"view","inputs":[{"name":"tokenId","type":"uint256"}],"outputs":[{"name":"","type":"address"}]}
]`

var parsedNFTABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(nftABI))
	if err != nil {
		panic(err) // constant input: a failure is a programming error caught by every test
	}
	return a
}()

// RESTNFTOwners answers NFTOwners from each chain's own REST gateway, the cheapest source
// that is always there and always current (an indexer may lag the chain by blocks and is not
// listed for every chain): one request per token.
//
//   - Move: GET /initia/move/v1/accounts/{object}/resources, whose 0x1::object::ObjectCore
//     names the owner and 0x1::nft::Nft the collection and token id; an object without
//     resources does not exist.
//   - EVM: POST /minievm/evm/v1/call with ownerOf(tokenId); a revert means no such token
//     (OpenZeppelin's ERC721 reverts for a nonexistent token).
//   - Wasm: GET /cosmwasm/wasm/v1/contract/{contract}/smart/{owner_of query}; the contract's
//     error answer means no such token.
type RESTNFTOwners struct {
	Options []httpx.Option

	mu      sync.Mutex
	clients map[string]*cosmosrest.Client
}

func (o *RESTNFTOwners) client(c *registry.Chain) (*cosmosrest.Client, error) {
	if len(c.REST) == 0 {
		return nil, fmt.Errorf("the registry lists no REST endpoint for %s", c.ID)
	}
	key := strings.Join(c.REST, ",")
	o.mu.Lock()
	defer o.mu.Unlock()
	if cl, ok := o.clients[key]; ok {
		return cl, nil
	}
	cl, err := cosmosrest.New(key, append(append([]httpx.Option(nil), o.Options...), httpx.WithConcurrency(4))...)
	if err != nil {
		return nil, fmt.Errorf("rest client for %s: %s", c.ID, redact.Text(err.Error()))
	}
	if o.clients == nil {
		o.clients = map[string]*cosmosrest.Client{}
	}
	o.clients[key] = cl
	return cl, nil
}

// chainAnswered reports whether err is the chain's own error answer (a query it refused)
// rather than a transport failure.
func chainAnswered(err error) bool {
	var e *cosmosrest.Error
	return errors.As(err, &e) && e.HTTPStatus >= 400 && e.HTTPStatus < 600 && (e.Code != 0 || e.HTTPStatus == 404)
}

// MoveNFT implements NFTOwners.
func (o *RESTNFTOwners) MoveNFT(ctx context.Context, c *registry.Chain, object string) (MoveNFT, error) {
	cl, err := o.client(c)
	if err != nil {
		return MoveNFT{}, err
	}
	var body struct {
		Resources []struct {
			StructTag    string `json:"struct_tag"`
			MoveResource string `json:"move_resource"`
		} `json:"resources"`
	}
	if err := cl.Get(ctx, "/initia/move/v1/accounts/"+url.PathEscape(object)+"/resources", nil, 0, &body); err != nil {
		if chainAnswered(err) {
			return MoveNFT{}, fmt.Errorf("%w: %w", ErrNFTMissing, err)
		}
		return MoveNFT{}, err
	}
	var out MoveNFT
	var isNFT bool
	for _, r := range body.Resources {
		var res struct {
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal([]byte(r.MoveResource), &res) != nil {
			continue
		}
		switch r.StructTag {
		case "0x1::object::ObjectCore":
			var d struct {
				Owner string `json:"owner"`
			}
			if json.Unmarshal(res.Data, &d) == nil {
				out.Owner, _ = moveAddr(d.Owner)
			}
		case "0x1::nft::Nft":
			var d struct {
				Collection struct {
					Inner string `json:"inner"`
				} `json:"collection"`
				TokenID string `json:"token_id"`
			}
			if json.Unmarshal(res.Data, &d) == nil {
				out.Collection, _ = moveAddr(d.Collection.Inner)
				out.TokenID, isNFT = d.TokenID, true
			}
		}
	}
	if out.Owner == nil || !isNFT {
		return MoveNFT{}, fmt.Errorf("%w: %s has no NFT object resources", ErrNFTMissing, object)
	}
	return out, nil
}

// ERC721Owner implements NFTOwners.
func (o *RESTNFTOwners) ERC721Owner(ctx context.Context, c *registry.Chain, contract common.Address, tokenID *big.Int) ([]byte, error) {
	cl, err := o.client(c)
	if err != nil {
		return nil, err
	}
	in, err := parsedNFTABI.Pack("ownerOf", tokenID)
	if err != nil {
		return nil, err
	}
	// The sender only has to be a valid address: the zero account, as a read-only call.
	req := map[string]string{"sender": bech(c.Bech32Prefix, make([]byte, 20)), "contract_addr": contract.Hex(), "input": "0x" + hex.EncodeToString(in), "value": "0"}
	var resp struct {
		Response string `json:"response"`
		Error    string `json:"error"`
	}
	if err := cl.Post(ctx, "/minievm/evm/v1/call", req, 0, &resp); err != nil {
		if chainAnswered(err) {
			return nil, fmt.Errorf("%w: %w", ErrNFTMissing, err)
		}
		return nil, err
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("%w: ownerOf reverted: %s", ErrNFTMissing, resp.Error)
	}
	ret, err := hex.DecodeString(strings.TrimPrefix(resp.Response, "0x"))
	if err != nil || len(ret) != 32 {
		return nil, fmt.Errorf("ownerOf answered %q", resp.Response)
	}
	return ret[12:], nil
}

// CW721Owner implements NFTOwners.
func (o *RESTNFTOwners) CW721Owner(ctx context.Context, c *registry.Chain, contract, tokenID string) (string, error) {
	cl, err := o.client(c)
	if err != nil {
		return "", err
	}
	q, _ := json.Marshal(map[string]any{"owner_of": map[string]string{"token_id": tokenID}})
	var resp struct {
		Data struct {
			Owner string `json:"owner"`
		} `json:"data"`
	}
	path := "/cosmwasm/wasm/v1/contract/" + url.PathEscape(contract) + "/smart/" + url.PathEscape(base64.StdEncoding.EncodeToString(q))
	if err := cl.Get(ctx, path, nil, 0, &resp); err != nil {
		if chainAnswered(err) {
			return "", fmt.Errorf("%w: %w", ErrNFTMissing, err)
		}
		return "", err
	}
	if resp.Data.Owner == "" {
		return "", fmt.Errorf("owner_of answered no owner")
	}
	return resp.Data.Owner, nil
}
