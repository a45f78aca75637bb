package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// ClientSource is the production Source: the project's CometBFT and REST clients, which bring
// the shared transport's retry with backoff, rate limiting and URL rotation.
type ClientSource struct {
	rpc  *comet.Client
	rest *cosmosrest.Client
	evm  EVMSource // nil unless WithEVM: not an EVM chain, or no JSON-RPC given
	up   *upstream // nil when built from ready clients (NewClientSource)
}

// DialSource builds the production source from the RPC_URL and REST_URL settings (each may
// be a comma-separated list to rotate over). opts go to both transports (timeouts, attempts,
// backoff, a shared limiter…). Every upstream attempt is recorded, so transport-level retries,
// which never reach the pipeline, are visible to readiness and, with a non-nil reg, in
// rollgate_ingest_upstream_attempts_total{upstream,url,result},
// rollgate_ingest_upstream_failures_total{upstream,url,kind} and
// rollgate_ingest_upstream_attempt_seconds{upstream,url} (url: the base URL, redacted).
func DialSource(rpcURLs, restURLs string, reg prometheus.Registerer, opts ...httpx.Option) (*ClientSource, error) {
	up, err := newUpstream(reg)
	if err != nil {
		return nil, err
	}
	rpc, err := comet.New(rpcURLs, append(append([]httpx.Option(nil), opts...), up.hooks("rpc"))...)
	if err != nil {
		return nil, fmt.Errorf("rpc: %w", err)
	}
	rest, err := cosmosrest.New(restURLs, append(append([]httpx.Option(nil), opts...), up.hooks("rest"))...)
	if err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	s := NewClientSource(rpc, rest)
	s.up = up
	return s, nil
}

// NewClientSource wraps the two clients.
func NewClientSource(rpc *comet.Client, rest *cosmosrest.Client) *ClientSource {
	return &ClientSource{rpc: rpc, rest: rest}
}

// WithEVM adds the chain's Ethereum JSON-RPC (EVM chains), from which the pipeline reads
// each block's receipts.
func (s *ClientSource) WithEVM(e EVMSource) *ClientSource {
	s.evm = e
	return s
}

// EVM returns the JSON-RPC source, or nil.
func (s *ClientSource) EVM() EVMSource { return s.evm }

// UpstreamState is the last successful HTTP attempt and the last failed one, with its error
// (zero when none yet, or when the source was not built by DialSource).
func (s *ClientSource) UpstreamState() (okAt, failAt time.Time, lastFail error) {
	if s.up == nil {
		return time.Time{}, time.Time{}, nil
	}
	return s.up.state()
}

// Genesis implements RichListSource: the app_state of CometBFT /genesis or, when that fails
// (a node refuses /genesis above 16 MB and names /genesis_chunked; providers often block
// /genesis alone), of /genesis_chunked.
func (s *ClientSource) Genesis(ctx context.Context) (json.RawMessage, error) {
	g, err := s.rpc.Genesis(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		var cerr error
		if g, cerr = s.rpc.GenesisChunked(ctx); cerr != nil {
			return nil, fmt.Errorf("%w; %w", err, cerr)
		}
	}
	var doc struct {
		AppState json.RawMessage `json:"app_state"`
	}
	if err := jsonx.Unmarshal(g.Genesis, &doc); err != nil {
		return nil, fmt.Errorf("genesis: %w: %w", ErrInvalidData, err)
	}
	return doc.AppState, nil
}

// ContractByDenom implements RichListSource (minievm's contracts/by_denom).
func (s *ClientSource) ContractByDenom(ctx context.Context, denom string) (string, error) {
	return s.rest.ContractByDenom(ctx, denom)
}

// BankBalances implements RichListSource.
func (s *ClientSource) BankBalances(ctx context.Context, addr string, height int64) ([]BankCoin, error) {
	cs, err := s.rest.Balances(ctx, addr, height)
	if err != nil {
		return nil, err
	}
	out := make([]BankCoin, len(cs))
	for i, c := range cs {
		out[i] = BankCoin{Denom: c.Denom, Amount: c.Amount}
	}
	return out, nil
}

// AccountAddresses implements StateSource, walking every page.
func (s *ClientSource) AccountAddresses(ctx context.Context, height int64) ([]string, error) {
	var out []string
	var page cosmosrest.PageRequest
	for i := 0; i < 100000; i++ {
		r, err := s.rest.Accounts(ctx, page, height)
		if err != nil {
			return nil, err
		}
		for _, a := range r.Accounts {
			if addr := cosmosrest.AccountAddress(a); addr != "" {
				out = append(out, addr)
			}
		}
		next := r.Pagination.Next()
		if next == "" || len(r.Accounts) == 0 {
			return out, nil
		}
		page = cosmosrest.PageRequest{Key: next}
	}
	return nil, fmt.Errorf("accounts at %d: too many pages", height)
}

// FAMetadata implements MoveMetadataSource.
func (s *ClientSource) FAMetadata(ctx context.Context, addr string) (string, int, error) {
	r, err := s.rest.Resource(ctx, addr, "0x1::fungible_asset::Metadata", 0)
	if err != nil {
		return "", 0, err
	}
	var res struct {
		Data struct {
			Symbol   string `json:"symbol"`
			Decimals int    `json:"decimals"`
		} `json:"data"`
	}
	if err := jsonx.Unmarshal([]byte(r.MoveResource), &res); err != nil {
		return "", 0, fmt.Errorf("metadata of %s: %w: %w", addr, ErrInvalidData, err)
	}
	return res.Data.Symbol, res.Data.Decimals, nil
}

// future maps both clients' "height not reached yet" answers to ErrFutureHeight.
func future(err error) error {
	if _, ok := comet.IsFutureHeight(err); ok {
		return fmt.Errorf("%w: %w", ErrFutureHeight, err)
	}
	if _, ok := cosmosrest.IsFutureHeight(err); ok {
		return fmt.Errorf("%w: %w", ErrFutureHeight, err)
	}
	return err
}

// LatestHeight implements Source.
func (s *ClientSource) LatestHeight(ctx context.Context) (int64, error) {
	return s.rpc.LatestHeight(ctx)
}

// Block implements Source.
func (s *ClientSource) Block(ctx context.Context, height int64) (*RawBlock, error) {
	r, err := s.rpc.Block(ctx, height)
	if err != nil {
		return nil, future(err)
	}
	if r.Block == nil || r.Block.Header.Height != height {
		return nil, fmt.Errorf("block %d: %w: missing or wrong header", height, ErrInvalidData)
	}
	h := r.Block.Header
	return &RawBlock{
		ChainID:         h.ChainID,
		Height:          h.Height,
		Hash:            r.BlockID.Hash,
		LastHash:        h.LastBlockID.Hash,
		Time:            h.Time.UTC(),
		ProposerAddress: h.ProposerAddress,
		Txs:             r.Block.Data.Txs,
	}, nil
}

// BlockHash is block h's block_id.hash from CometBFT `/blockchain` (a header, not the txs),
// for the pipeline's check that a height retried after a failure still comes from one chain
// (blockHasher). A node that does not answer `/blockchain` for h is asked for the block.
func (s *ClientSource) BlockHash(ctx context.Context, height int64) ([]byte, error) {
	r, err := s.rpc.Blockchain(ctx, height, height)
	if err == nil && len(r.BlockMetas) == 1 && r.BlockMetas[0] != nil && r.BlockMetas[0].Header.Height == height {
		return r.BlockMetas[0].BlockID.Hash, nil
	}
	b, err := s.Block(ctx, height)
	if err != nil {
		return nil, err
	}
	return b.Hash, nil
}

// BlockResults implements Source.
func (s *ClientSource) BlockResults(ctx context.Context, height int64) ([]TxResult, error) {
	r, err := s.rpc.BlockResults(ctx, height)
	if err != nil {
		return nil, future(err)
	}
	out := make([]TxResult, 0, len(r.TxsResults))
	for i, t := range r.TxsResults {
		if t == nil {
			return nil, fmt.Errorf("block_results %d: %w: null result %d", height, ErrInvalidData, i)
		}
		res := TxResult{Code: t.Code, Codespace: t.Codespace, Data: t.Data, Log: t.Log, Info: t.Info,
			GasWanted: t.GasWanted, GasUsed: t.GasUsed}
		for _, ev := range t.Events {
			e := Event{Type: ev.Type}
			for _, a := range ev.Attributes {
				e.Attributes = append(e.Attributes, EventAttribute{Key: a.Key, Value: a.Value, Index: a.Index})
			}
			res.Events = append(res.Events, e)
		}
		out = append(out, res)
	}
	return out, nil
}

// BlockTxs implements Source.
func (s *ClientSource) BlockTxs(ctx context.Context, height int64) ([]json.RawMessage, error) {
	r, err := s.rest.TxsByBlock(ctx, height)
	if err != nil {
		return nil, future(err)
	}
	return r.Txs, nil
}

// Validators implements Source. cosmosrest has only the single-validator call, so the list
// is read through its generic Get.
func (s *ClientSource) Validators(ctx context.Context) ([]Validator, error) {
	var out []Validator
	key := ""
	for page := 0; page < 1000; page++ {
		var q url.Values
		if key != "" {
			q = url.Values{"pagination.key": {key}}
		}
		var r struct {
			Validators []struct {
				Moniker         string `json:"moniker"`
				OperatorAddress string `json:"operator_address"`
				ConsensusPubkey struct {
					Type string `json:"@type"`
					Key  []byte `json:"key"`
				} `json:"consensus_pubkey"`
			} `json:"validators"`
			Pagination *cosmosrest.PageResponse `json:"pagination"`
		}
		if err := s.rest.Get(ctx, "/opinit/opchild/v1/validators", q, 0, &r); err != nil {
			return nil, err
		}
		for _, v := range r.Validators {
			out = append(out, Validator{Moniker: v.Moniker, OperatorAddress: v.OperatorAddress,
				ConsensusPubKeyType: v.ConsensusPubkey.Type, ConsensusPubKey: v.ConsensusPubkey.Key})
		}
		if key = r.Pagination.Next(); key == "" {
			break
		}
	}
	return out, nil
}

var _ Source = (*ClientSource)(nil)
