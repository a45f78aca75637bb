package fleet_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/indexer/fleet"
)

// account has txs on all three captured chains.
const account = "init1nrjs8u6apgqeev9z2xkjgwjvel8nw86x8vkeuz"

type listed struct {
	Txs        []json.RawMessage `json:"txs"`
	Pagination struct {
		NextKey *string `json:"next_key"`
		Total   string  `json:"total"`
	} `json:"pagination"`
}

type txFacts struct {
	Height    string `json:"height"`
	Timestamp string `json:"timestamp"`
	TxHash    string `json:"txhash"`
	ChainID   string `json:"chain_id"`
}

func facts(t *testing.T, b []byte) txFacts {
	t.Helper()
	var f txFacts
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func getList(t *testing.T, u string) listed {
	t.Helper()
	st, _, b := get(t, u, "")
	if st != http.StatusOK {
		t.Fatalf("%s: %d %s", u, st, b)
	}
	var l listed
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	return l
}

// TestCrossRollupTxsWhileIngesting (must-show 2): three captured chains advance at different
// speeds while a client walks an account's txs across all of them, three a page. The walk
// equals the merge by block time of the per-chain answers (each chain's own
// /{chain_id}/indexer/tx/v1/txs/by_account list, restricted to the txs older than the walk):
// nothing skipped, nothing repeated, each chain's part a suffix of its own list that holds
// every tx indexed before the walk began.
func TestCrossRollupTxsWhileIngesting(t *testing.T) {
	type chainUp struct {
		*moving
		every time.Duration
	}
	var ups []*chainUp
	specs := []fleet.Chain{}
	for i, c := range capturedChains(t) {
		// Different speeds: a block every 8, 20 and 32 ms; each served again with a tip that
		// moves (the replay capturedChains serves stops at top).
		u := &chainUp{moving: serveMoving(t, c, "", c.top/3), every: time.Duration(8+12*i) * time.Millisecond}
		ups = append(ups, u)
		specs = append(specs, u.spec())
	}
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, specs...)
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: -1, Ingest: fastIngest()})
	for _, u := range ups {
		waitHeight(t, srv.URL+"/"+u.id, u.tip.Load(), time.Minute)
	}
	stop := make(chan struct{})
	for _, u := range ups {
		go advance(stop, u.every, u.moving)
	}
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}()

	heightOf := func(id string) int64 {
		_, _, b := get(t, srv.URL+"/"+id+"/status", "")
		var s struct{ Height int64 }
		_ = json.Unmarshal(b, &s)
		return s.Height
	}
	before := map[string]int64{}
	for _, u := range ups {
		before[u.id] = heightOf(u.id)
	}
	var walk []json.RawMessage
	afterFirst := map[string]int64{} // heights read right after the first page
	q := url.Values{"pagination.limit": {"3"}}
	pages := 0
	for {
		l := getList(t, srv.URL+"/all/indexer/tx/v1/txs/by_account/"+account+"?"+q.Encode())
		pages++
		walk = append(walk, l.Txs...)
		if pages == 1 {
			for _, u := range ups {
				afterFirst[u.id] = heightOf(u.id)
			}
		}
		if len(l.Txs) == 0 || l.Pagination.NextKey == nil {
			break
		}
		q.Set("pagination.key", *l.Pagination.NextKey)
		time.Sleep(15 * time.Millisecond)
		if pages > 1000 {
			t.Fatal("the walk does not end")
		}
	}
	moved := 0
	for _, u := range ups {
		if heightOf(u.id) > before[u.id] {
			moved++
		}
	}
	close(stop)
	if moved == 0 {
		t.Fatal("no chain advanced during the walk: the test did not walk while ingesting")
	}
	// Every chain at its top, then its own answer in full.
	want := map[string][]json.RawMessage{}
	for _, u := range ups {
		u.tip.Store(u.top)
		waitHeight(t, srv.URL+"/"+u.id, u.top, time.Minute)
		l := getList(t, srv.URL+"/"+u.id+"/indexer/tx/v1/txs/by_account/"+account+"?pagination.limit=1000")
		want[u.id] = l.Txs
	}
	// Split the walk by chain; each part must be a suffix of the chain's own list, starting no
	// later than its first tx at or below the height indexed before the walk.
	parts := map[string][][]byte{}
	seen := map[string]bool{}
	for _, b := range walk {
		f := facts(t, b)
		if seen[f.ChainID+f.TxHash] {
			t.Fatalf("tx %s of %s twice in the walk", f.TxHash, f.ChainID)
		}
		seen[f.ChainID+f.TxHash] = true
		parts[f.ChainID] = append(parts[f.ChainID], b)
		// The walk is of the txs that existed when it began: none indexed after its first page.
		if h, _ := strconv.ParseInt(f.Height, 10, 64); h > afterFirst[f.ChainID] {
			t.Errorf("%s: tx %s at height %d entered the walk, indexed after its first page (height %d then)", f.ChainID, f.TxHash, h, afterFirst[f.ChainID])
		}
	}
	type item struct {
		chain string
		at    time.Time
		idx   int
		body  []byte
	}
	var expect []item
	for _, u := range ups {
		id, own := u.id, want[u.id]
		start := len(own)
		if p := parts[id]; len(p) > 0 {
			h := facts(t, withoutChainID(t, p[0])).TxHash
			for i, b := range own {
				if facts(t, b).TxHash == h {
					start = i
					break
				}
			}
			if start == len(own) {
				t.Fatalf("%s: the walk's first tx %s is not in the chain's own list", id, h)
			}
		}
		for i := 0; i < start; i++ {
			if hh, _ := strconv.ParseInt(facts(t, own[i]).Height, 10, 64); hh <= before[id] {
				t.Errorf("%s: tx at height %d, indexed before the walk, is missing from it", id, hh)
			}
		}
		for i, b := range own[start:] {
			at, _ := time.Parse(time.RFC3339Nano, facts(t, b).Timestamp)
			expect = append(expect, item{chain: id, at: at, idx: i, body: b})
		}
		t.Logf("%s: %d of its %d txs of the account in the walk (height %d before the walk)", id, len(own)-start, len(own), before[id])
	}
	sort.SliceStable(expect, func(i, j int) bool {
		a, b := expect[i], expect[j]
		if !a.at.Equal(b.at) {
			return a.at.After(b.at)
		}
		if a.chain != b.chain {
			return a.chain < b.chain
		}
		return a.idx < b.idx
	})
	if len(expect) != len(walk) {
		t.Fatalf("walk of %d txs in %d pages, the merge of the chains' answers has %d", len(walk), pages, len(expect))
	}
	for i, e := range expect {
		if !bytes.Equal(withoutChainID(t, walk[i]), e.body) || facts(t, walk[i]).ChainID != e.chain {
			t.Fatalf("tx %d of the walk: %.200s\nmerge of the chains' answers: %s %.200s", i, walk[i], e.chain, e.body)
		}
	}
	t.Logf("%d txs in %d pages equal the merge of the per-chain answers; %d chains advanced during the walk", len(walk), pages, moved)
	if len(walk) < 12 {
		t.Fatalf("only %d txs walked", len(walk))
	}
}

// withoutChainID removes the "chain_id" member the cross-rollup view puts first.
func withoutChainID(t *testing.T, b []byte) []byte {
	t.Helper()
	if !bytes.HasPrefix(b, []byte(`{"chain_id":"`)) {
		t.Fatalf("no leading chain_id: %.100s", b)
	}
	end := bytes.IndexByte(b[len(`{"chain_id":"`):], '"') + len(`{"chain_id":"`) + 1
	rest := b[end:]
	if bytes.HasPrefix(rest, []byte(",")) {
		rest = rest[1:]
	}
	return append([]byte("{"), rest...)
}

// TestCrossRollupNFTs: an account's NFTs over every chain, walked two a page, are each
// chain's own answer in chain-id order, each token tagged with its chain; the total is the
// sum of the chains' totals.
func TestCrossRollupNFTs(t *testing.T) {
	const owner = "init1ew06r65m3galgg4gvw0j8hmhafnqyrkzsqnw36"
	chains := capturedChains(t)
	var specs []fleet.Chain
	for _, c := range chains {
		specs = append(specs, c.spec())
	}
	file := filepath.Join(t.TempDir(), "chains.json")
	writeChains(t, file, specs...)
	_, srv := startFleet(t, fleet.Config{Chains: file, DB: "sqlite:" + t.TempDir(), Reload: -1, Ingest: fastIngest()})
	type tokens struct {
		Tokens     []json.RawMessage `json:"tokens"`
		Pagination struct {
			NextKey *string `json:"next_key"`
			Total   string  `json:"total"`
		} `json:"pagination"`
	}
	fetch := func(u string) tokens {
		st, _, b := get(t, u, "")
		var v tokens
		if st != http.StatusOK || json.Unmarshal(b, &v) != nil {
			t.Fatalf("%s: %d %s", u, st, b)
		}
		return v
	}
	sort.Slice(chains, func(i, j int) bool { return chains[i].id < chains[j].id })
	var want [][]byte
	var total int64
	withNFTs := 0
	for _, c := range chains {
		waitHeight(t, srv.URL+"/"+c.id, c.top, 3*time.Minute)
		v := fetch(srv.URL + "/" + c.id + "/indexer/nft/v1/tokens/by_account/" + owner + "?pagination.limit=1000")
		n, _ := strconv.ParseInt(v.Pagination.Total, 10, 64)
		total += n
		if len(v.Tokens) > 0 {
			withNFTs++
		}
		for _, tk := range v.Tokens {
			want = append(want, append([]byte(`{"chain_id":"`+c.id+`",`), tk[1:]...))
		}
	}
	if withNFTs < 2 {
		t.Fatalf("the account has NFTs on %d chains, want a test over two at least", withNFTs)
	}
	var got [][]byte
	q := url.Values{"pagination.limit": {"2"}}
	for pages := 0; ; pages++ {
		v := fetch(srv.URL + "/all/indexer/nft/v1/tokens/by_account/" + owner + "?" + q.Encode())
		if v.Pagination.Total != strconv.FormatInt(total, 10) {
			t.Fatalf("total %s, want the chains' sum %d", v.Pagination.Total, total)
		}
		for _, tk := range v.Tokens {
			got = append(got, tk)
		}
		if v.Pagination.NextKey == nil || pages > 100 {
			break
		}
		q.Set("pagination.key", *v.Pagination.NextKey)
	}
	if len(got) != len(want) {
		t.Fatalf("%d tokens walked, the chains hold %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("token %d: %s\nwant %s", i, got[i], want[i])
		}
	}
	t.Logf("%d tokens on %d chains, walked two a page", len(got), withNFTs)
}
