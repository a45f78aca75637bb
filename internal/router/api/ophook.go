package api

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/redact"
	"github.com/rollgate/rollgate/internal/router/registry"
)

// ContractSource finds the ERC-20 of a bank denom on a minievm chain: the op hook's approve
// is a call on that contract, and the registry does not list the bridged coin's ERC-20.
type ContractSource interface {
	ContractByDenom(ctx context.Context, c *registry.Chain, denom string) (string, error)
}

// RESTContracts asks the chain's REST gateway (GET /minievm/evm/v1/contracts/by_denom) and
// remembers the answers: a denom's ERC-20 never changes once the chain created it.
type RESTContracts struct {
	Options []httpx.Option

	mu      sync.Mutex
	clients map[string]*cosmosrest.Client
	known   map[string]string // chain id + "\x00" + denom → address
}

// ContractByDenom implements ContractSource.
func (r *RESTContracts) ContractByDenom(ctx context.Context, c *registry.Chain, denom string) (string, error) {
	k := c.ID + "\x00" + denom
	r.mu.Lock()
	if a, ok := r.known[k]; ok {
		r.mu.Unlock()
		return a, nil
	}
	if len(c.REST) == 0 {
		r.mu.Unlock()
		return "", fmt.Errorf("no REST endpoint for %s", c.ID)
	}
	key := strings.Join(c.REST, ",")
	cl, ok := r.clients[key]
	if !ok {
		var err error
		if cl, err = cosmosrest.New(key, r.Options...); err != nil {
			r.mu.Unlock()
			return "", fmt.Errorf("rest client for %s: %s", c.ID, redact.Text(err.Error()))
		}
		if r.clients == nil {
			r.clients, r.known = map[string]*cosmosrest.Client{}, map[string]string{}
		}
		r.clients[key] = cl
	}
	r.mu.Unlock()
	a, err := cl.ContractByDenom(ctx, denom)
	if err != nil {
		return "", fmt.Errorf("the ERC-20 of %s on %s: %w", denom, c.ID, err)
	}
	r.mu.Lock()
	r.known[k] = a
	r.mu.Unlock()
	return a, nil
}
