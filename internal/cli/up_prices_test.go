package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestUpShowsDollarValues: out of the box, `up`'s router prices INIT from the devnet L1's
// oracle (InterwovenKit's asset list with prices, a route's usd_amount_in) and every
// indexer's /minity portfolio stream gives the first test account's INIT on the L1 a dollar
// value, one event per Initia chain, then ends; up prints that URL as InterwovenKit's
// minityUrl.
func TestUpShowsDollarValues(t *testing.T) {
	u := startUp(t, t.TempDir(), 120*time.Second, "--interval", "100ms", "--log-level", "warn")
	defer u.stop(t)
	const l1 = "initia-devnet-1"
	var assets []struct {
		ID    string  `json:"id"`
		Price float64 `json:"price"`
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		assets = nil
		if getJSON(t, u.eps.Router+"/initia/"+l1+"/assets?quote=USD&with_prices=true", &assets) == http.StatusOK && len(assets) > 0 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	var initPrice float64
	for _, a := range assets {
		if a.ID == "uinit" {
			initPrice = a.Price
		}
	}
	if initPrice <= 0 {
		t.Fatalf("up's router lists no INIT price: %+v", assets)
	}

	if u.eps.Accounts == nil || len(u.eps.Accounts.List) == 0 {
		t.Fatal("up printed no test account")
	}
	user := u.eps.Accounts.List[0].Addresses[l1]
	if !strings.Contains(u.out.String(), "PORTFOLIO "+u.eps.Portfolio) || u.eps.Portfolio != u.eps.Chains[l1].Indexer+"/minity" {
		t.Fatalf("up prints no portfolio URL (minityUrl) on the L1's indexer: %q", u.eps.Portfolio)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u.eps.Portfolio+"/v1/chain/all/"+user, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("portfolio stream: %d", resp.StatusCode)
	}
	type balance struct {
		Denom string   `json:"denom"`
		Value *float64 `json:"value"`
	}
	var events []struct {
		Type     string    `json:"type"`
		Chain    string    `json:"chain"`
		ChainID  string    `json:"chainId"`
		Balances []balance `json:"balances"`
		Error    string    `json:"error"`
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, struct {
				Type     string    `json:"type"`
				Chain    string    `json:"chain"`
				ChainID  string    `json:"chainId"`
				Balances []balance `json:"balances"`
				Error    string    `json:"error"`
			}{})
			if err := json.Unmarshal([]byte(data), &events[len(events)-1]); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
		}
	}
	if len(events) != 4 {
		t.Fatalf("%d events, want one per Initia chain of the devnet (4): %+v", len(events), events)
	}
	valued := false
	for _, ev := range events {
		if ev.Type != "balances" {
			t.Errorf("%s: %s %s", ev.ChainID, ev.Type, ev.Error)
		}
		for _, b := range ev.Balances {
			if ev.ChainID == l1 && b.Denom == "uinit" && b.Value != nil && *b.Value > 0 {
				valued = true
			}
		}
	}
	if !valued {
		t.Errorf("the test account's INIT on the L1 has no dollar value: %+v", events)
	}
}
