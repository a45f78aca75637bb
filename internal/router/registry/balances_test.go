package registry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const balancesAccount = "init1qyqszqgpqyqszqgpqyqszqgpqyqszqgpjnp7du"

func TestRESTBalances(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cosmos/bank/v1beta1/balances/"+balancesAccount {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"balances":[{"denom":"uinit","amount":"77"},{"denom":"bad","amount":"x"}],"pagination":{"next_key":null,"total":"2"}}`)
	}))
	defer srv.Close()
	c := &Chain{ID: "l1-1", Type: ChainTypeCosmos, REST: []string{srv.URL}}
	got, err := (&RESTBalances{}).Balances(context.Background(), c, balancesAccount)
	if err != nil || len(got) != 1 || got["uinit"] != "77" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := (&RESTBalances{}).Balances(context.Background(), &Chain{ID: "31337", Type: ChainTypeEVM}, "0x00"); err == nil {
		t.Error("EVM chain answered")
	}
}

// TestRESTBalancesBounded: many concurrent callers never put more than Concurrency requests
// in flight on one chain's endpoint.
func TestRESTBalancesBounded(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, `{"balances":[{"denom":"uinit","amount":"1"}],"pagination":{"next_key":null,"total":"1"}}`)
	}))
	defer srv.Close()
	c := &Chain{ID: "l1-1", Type: ChainTypeCosmos, REST: []string{srv.URL}}
	src := &RESTBalances{Concurrency: 3}
	var wg sync.WaitGroup
	for range 24 {
		wg.Go(func() {
			if _, err := src.Balances(context.Background(), c, balancesAccount); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak in flight %d, want 2..3 (bound 3)", p)
	}
}
