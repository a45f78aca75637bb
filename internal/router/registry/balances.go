package registry

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/holiman/uint256"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/redact"
)

// DefaultBalanceConcurrency bounds the balance requests in flight to one chain's REST
// endpoints, across all API requests.
const DefaultBalanceConcurrency = 4

// RESTBalances reads account balances over Cosmos REST (`/cosmos/bank/v1beta1/balances`,
// all pages) through the project's cosmosrest client, one client per chain: the router API's
// /v2/info/balances source. However many API requests arrive, at most Concurrency requests
// reach one chain's endpoints at a time.
type RESTBalances struct {
	Options []httpx.Option
	// Concurrency is the per-chain bound; DefaultBalanceConcurrency when 0.
	Concurrency int

	mu      sync.Mutex
	clients map[string]*cosmosrest.Client
}

// Balances returns the account's balances by denom (base-unit decimal strings) on a Cosmos
// chain; amounts that are not integers are left out.
func (b *RESTBalances) Balances(ctx context.Context, c *Chain, address string) (map[string]string, error) {
	if c.Type != ChainTypeCosmos || len(c.REST) == 0 {
		return nil, fmt.Errorf("no Cosmos REST endpoint for %s", c.ID)
	}
	cl, err := b.client(c)
	if err != nil {
		return nil, err
	}
	coins, err := cl.Balances(ctx, address, 0)
	if err != nil {
		return nil, fmt.Errorf("balances of %s on %s: %w", address, c.ID, err)
	}
	out := make(map[string]string, len(coins))
	for _, x := range coins {
		if _, err := uint256.FromDecimal(x.Amount); err == nil {
			out[x.Denom] = x.Amount
		}
	}
	return out, nil
}

func (b *RESTBalances) client(c *Chain) (*cosmosrest.Client, error) {
	key := strings.Join(c.REST, ",")
	b.mu.Lock()
	defer b.mu.Unlock()
	if cl, ok := b.clients[key]; ok {
		return cl, nil
	}
	n := b.Concurrency
	if n <= 0 {
		n = DefaultBalanceConcurrency
	}
	// The bound goes last so a caller's WithConcurrency cannot lift it by accident.
	cl, err := cosmosrest.New(key, append(append([]httpx.Option(nil), b.Options...), httpx.WithConcurrency(n))...)
	if err != nil {
		return nil, fmt.Errorf("rest client for %s: %s", c.ID, redact.Text(err.Error()))
	}
	if b.clients == nil {
		b.clients = map[string]*cosmosrest.Client{}
	}
	b.clients[key] = cl
	return cl, nil
}
