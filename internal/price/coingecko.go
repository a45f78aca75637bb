package price

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/redact"
)

// CoinGecko configures the optional second source: a CoinGecko-compatible `simple/price`
// endpoint (GET {URL}/simple/price?ids=…&vs_currencies=usd&include_last_updated_at=true,
// answering {"<id>": {"usd": 1.23, "last_updated_at": 1700000000}}) asked for the assets the
// oracle does not quote, by the registry's coingecko_id.
type CoinGecko struct {
	// URL is the API base, e.g. https://pro-api.coingecko.com/api/v3.
	URL string
	// Key is sent in KeyHeader, never in the URL, so no error or log line can carry it.
	Key string
	// KeyHeader names the key's header (DefaultKeyHeader when empty; CoinGecko's demo plan
	// reads x-cg-demo-api-key).
	KeyHeader string
}

// DefaultKeyHeader is the header CoinGecko's paid plans read the key from.
const DefaultKeyHeader = "x-cg-pro-api-key"

// geckoBatch bounds the ids of one simple/price request.
const geckoBatch = 100

type geckoClient struct {
	h      *httpx.Client
	header http.Header
	key    string
}

// scrub takes the key out of an error text: an upstream may quote it back in a refusal.
func (g *geckoClient) scrub(s string) string {
	s = redact.Text(s)
	if g.key != "" {
		s = strings.ReplaceAll(s, g.key, "[REDACTED]")
	}
	return s
}

func newGecko(cfg CoinGecko, opts []httpx.Option) (*geckoClient, error) {
	h, err := httpx.New(strings.TrimRight(cfg.URL, "/"), opts...)
	if err != nil {
		return nil, fmt.Errorf("coingecko client: %s", redact.Text(err.Error()))
	}
	g := &geckoClient{h: h, header: http.Header{}, key: cfg.Key}
	if cfg.Key != "" {
		name := cfg.KeyHeader
		if name == "" {
			name = DefaultKeyHeader
		}
		g.header.Set(name, cfg.Key)
	}
	return g, nil
}

// read asks the USD price of ids. An id the endpoint does not know, or answers without a
// positive usd, is left out. fetched stamps a price the answer gives no time for.
func (g *geckoClient) read(ctx context.Context, ids []string, fetched time.Time) (map[string]Quote, error) {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make(map[string]Quote, len(ids))
	for start := 0; start < len(ids); start += geckoBatch {
		batch := ids[start:min(start+geckoBatch, len(ids))]
		q := url.Values{"ids": {strings.Join(batch, ",")}, "vs_currencies": {"usd"}, "include_last_updated_at": {"true"}, "precision": {"full"}}
		resp, err := g.h.Do(ctx, httpx.Request{Path: "/simple/price", Query: q, Header: g.header, ExpectJSON: true})
		if err != nil {
			return nil, fmt.Errorf("coingecko simple/price: %s", g.scrub(err.Error()))
		}
		var body map[string]map[string]json.Number
		dec := json.NewDecoder(bytes.NewReader(resp.Body))
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			return nil, fmt.Errorf("coingecko simple/price: %w", err)
		}
		for _, id := range batch {
			e, ok := body[id]
			if !ok {
				continue
			}
			usd, ok := new(big.Rat).SetString(e["usd"].String())
			if !ok || usd.Sign() <= 0 {
				continue
			}
			at := fetched
			if ts, err := e["last_updated_at"].Int64(); err == nil && ts > 0 {
				at = time.Unix(ts, 0).UTC()
			}
			out[id] = Quote{USD: usd, Source: SourceCoinGecko, Ref: id, At: at}
		}
	}
	return out, nil
}
