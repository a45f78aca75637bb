package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/store/storetest"
)

// Target is one endpoint to load: a name for the report and a path with query.
type Target struct {
	Name string
	Path string
}

// EndpointResult is what one target sustained.
type EndpointResult struct {
	Name      string
	Requests  int     // completed requests (any status)
	Errors    int     // transport errors and non-200 answers
	ReqPerSec float64 // Requests / elapsed seconds
	P50, P99  time.Duration
}

// baseTargets picks representative requests from what the store holds: the newest tx by
// hash, first pages of the lists, a page 90% deep by offset key and by cursor, the txs of the
// newest height with txs, and (when account is non-empty) that account's txs.
func baseTargets(ctx context.Context, r store.Reader, account string) ([]Target, error) {
	t := []Target{
		{"status", "/status"},
		{"blocks", "/indexer/block/v1/blocks?pagination.limit=20"},
		{"avg_blocktime", "/indexer/block/v1/avg_blocktime"},
		{"txs", "/indexer/tx/v1/txs?pagination.limit=20"},
		{"txs_msgs", "/indexer/tx/v1/txs?pagination.limit=20&msgs=cosmos.bank.v1beta1.MsgSend"},
	}
	page, err := r.Txs(ctx, store.TxFilter{}, store.Page{Limit: 1, Desc: true, CountTotal: true})
	if err != nil {
		return nil, err
	}
	if len(page.Txs) > 0 {
		newest := page.Txs[0]
		var tx struct {
			TxHash string `json:"txhash"`
		}
		if err := json.Unmarshal(newest.JSON, &tx); err == nil && tx.TxHash != "" {
			t = append(t, Target{"tx_by_hash", "/indexer/tx/v1/txs/" + tx.TxHash})
		}
		t = append(t, Target{"txs_by_height", "/indexer/tx/v1/txs/by_height/" + strconv.FormatInt(newest.Height, 10)})
		deep := page.Total * 9 / 10
		key := base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(deep, 10)))
		t = append(t, Target{"txs_deep_offset", "/indexer/tx/v1/txs?pagination.limit=20&pagination.key=" + url.QueryEscape(key)})
		cur := base64.StdEncoding.EncodeToString([]byte(`{"sequence":` + strconv.FormatInt(page.Total-deep, 10) + `}`))
		t = append(t, Target{"txs_deep_cursor", "/indexer/tx/v1/txs?pagination.limit=20&pagination.key=" + url.QueryEscape(cur)})
		t = append(t, Target{"blocks_deep_offset", "/indexer/block/v1/blocks?pagination.limit=20&pagination.offset=" +
			strconv.FormatInt(newest.Height*9/10, 10)})
	}
	if account != "" {
		t = append(t,
			Target{"txs_by_account", "/indexer/tx/v1/txs/by_account/" + url.PathEscape(account) + "?pagination.limit=20"},
			Target{"txs_by_account_signer", "/indexer/tx/v1/txs/by_account/" + url.PathEscape(account) + "?pagination.limit=20&is_signer=true"},
			Target{"txs_by_account_deep", "/indexer/tx/v1/txs/by_account/" + url.PathEscape(account) + "?pagination.limit=20&pagination.offset=500"},
		)
	}
	return t, nil
}

// syntheticAccount is the bech32 form of an account storetest.Fill uses (the signer of
// every Accounts-th tx), for baseTargets.
func syntheticAccount(prefix string) string {
	s, _ := address.Bech32(prefix, storetest.Account(1))
	return s
}

// load drives each target in turn with `clients` concurrent clients for d, against
// baseURL (e.g. "http://127.0.0.1:8080"), and reports throughput and latency percentiles.
// Nothing here asserts a timing; the caller prints the results.
func load(ctx context.Context, client *http.Client, baseURL string, targets []Target, clients int, d time.Duration) ([]EndpointResult, error) {
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	}
	clients = max(clients, 1)
	var out []EndpointResult
	for _, tg := range targets {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		res, err := benchOne(ctx, client, baseURL+tg.Path, clients, d)
		if err != nil {
			return out, fmt.Errorf("bench %s: %w", tg.Name, err)
		}
		res.Name = tg.Name
		out = append(out, res)
	}
	return out, nil
}

func benchOne(ctx context.Context, client *http.Client, u string, clients int, d time.Duration) (EndpointResult, error) {
	// One request first, so a wrong URL fails loudly instead of measuring 404s.
	if err := fetch(ctx, client, u); err != nil {
		return EndpointResult{}, err
	}
	// Requests started before the deadline run to completion and count, so every client
	// contributes at least one sample however slow the server is.
	deadline := time.Now().Add(d)
	var mu sync.Mutex
	var lat []time.Duration
	errs := 0
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			bad := 0
			for first := true; first || time.Now().Before(deadline); first = false {
				if ctx.Err() != nil {
					break
				}
				t0 := time.Now()
				err := fetch(ctx, client, u)
				mine = append(mine, time.Since(t0))
				if err != nil {
					bad++
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			errs += bad
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	slices.Sort(lat)
	r := EndpointResult{Requests: len(lat), Errors: errs}
	if el > 0 {
		r.ReqPerSec = float64(len(lat)) / el.Seconds()
	}
	if n := len(lat); n > 0 {
		r.P50 = lat[(n-1)*50/100]
		r.P99 = lat[(n-1)*99/100]
	}
	return r, nil
}

func fetch(ctx context.Context, client *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return nil
}
