package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rollgate/rollgate/internal/chain/replay"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/indexer/api"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/indexer/profile"
	"github.com/rollgate/rollgate/internal/store"
	"github.com/rollgate/rollgate/internal/testutil"
)

// peerRecord is one line of a rollytics*/index.jsonl: a request rollytics answered.
type peerRecord struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Path        string `json:"path"`
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
}

// outOfScope lists the route families this test does not replay, each with the reason. Every
// other request of rollytics' sample is compared.
var outOfScope = []struct{ prefix, why string }{
	{"/indexer/richlist/", "the Move capture has no /genesis to start the rich list from, and rollytics' Move holders depend on the height it bootstrapped at"},
}

// recordingWriter remembers every message type written, so the test knows which `msgs`
// values the store knows (rollytics drops unknown ones; see ruleMsgs). It is the whole store
// otherwise, so every extension of the profile finds the store side it needs.
type recordingWriter struct {
	*store.DB
	mu    sync.Mutex
	types map[string]bool
}

func (w *recordingWriter) WriteBlocks(ctx context.Context, bundles []store.BlockBundle) error {
	if err := w.DB.WriteBlocks(ctx, bundles); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range bundles {
		for _, tx := range b.Txs {
			for _, m := range tx.MsgTypes {
				w.types[m] = true
			}
		}
	}
	return nil
}

// TestConformance replays, for each captured chain, every core request of rollytics' sample
// against rollgate (replay server → ingest pipeline → SQLite or PostgreSQL store → indexer
// API) and compares status and body field for field. Deviations are allowed only by the rules
// below, each one a decision of docs/contract/indexer.md or a rollytics fault named in
// testdata/fixtures/README.md.
func TestConformance(t *testing.T) {
	chains := []struct {
		fixture, sample string
		vm              vmkind.Kind
	}{
		{"minievm", "rollytics", vmkind.EVM},
		{"minimove", "rollytics-move", vmkind.Move},
		{"miniwasm", "rollytics-wasm", vmkind.Wasm},
	}
	// Both backends: the API must serve the same bytes whichever store holds the data.
	for _, c := range chains {
		for _, be := range storeBackends {
			t.Run(c.fixture+"/"+be.Name, func(t *testing.T) { conformChain(t, c.fixture, c.sample, c.vm, be.DSN(t)) })
		}
	}
}

// conformChain ingests one captured chain into the store at dsn, serves it and replays the
// rollytics' sample against it.
func conformChain(t *testing.T, fixture, sample string, vm vmkind.Kind, dsn string) {
	sampleDir := testutil.Fixture(t, sample)
	var st struct {
		ChainID string `json:"chain_id"`
		Height  int64  `json:"height"`
	}
	testutil.ReadJSON(t, filepath.Join(sampleDir, "responses", "status.body"), &st)

	// Rollytics' answers were taken with the chain (and rollytics) at st.Height, so
	// the replayed chain stops there and ingestion catches up to exactly that height.
	// The captures hold the NFT lookups whose answers never change (ERC-721 name/tokenURI, a
	// CW721 contract's name and instantiator) at other heights than an indexer asks them: the
	// minievm capture at its last height only, the miniwasm capture at the instantiate heights,
	// while the fetch stage may ask at any later height first. HeightFallback answers those
	// with the capture of the same query at the nearest height (a limit of the captures, not a
	// rule on the answers: the facts are the same at every height where they exist).
	srv, err := replay.New(testutil.Fixture(t, fixture), replay.MaxHeight(func() int64 { return st.Height }),
		replay.HeightFallback(replay.NFTFacts))
	if err != nil {
		t.Fatal(err)
	}
	chain := httptest.NewServer(srv)
	defer chain.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	w := &recordingWriter{DB: db, types: map[string]bool{}}
	src, err := chainSource(chain.URL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ingest.New(profile.Ingest(ingest.Config{
		// The Move capture has no /genesis, where the rich list starts from.
		ChainID: st.ChainID, VMType: vm.String(), AccountPrefix: "init", RichList: vm != vmkind.Move,
		PollInterval: 10 * time.Millisecond, RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond,
		StopAtHeight: st.Height,
	}, profile.Options{}), src, w, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(ctx); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	if h, _ := db.IndexedHeight(ctx); h != st.Height {
		t.Fatalf("ingested up to %d, want %d", h, st.Height)
	}
	if vm == vmkind.EVM {
		// The internal-tx follower, as in production, behind the block writer; rollytics'
		// answers were taken with its internal_tx_height at the top.
		f := ingest.NewInternalFollower(ingest.InternalConfig{PollInterval: 10 * time.Millisecond,
			RetryMin: 5 * time.Millisecond, RetryMax: 50 * time.Millisecond, StopAtHeight: st.Height}, src.EVM(), db, nil)
		if err := f.Run(ctx); err != nil {
			t.Fatalf("internal txs: %v", err)
		}
		if h, _ := db.InternalTxHeight(ctx); h != st.Height {
			t.Fatalf("internal txs up to %d, want %d", h, st.Height)
		}
	}
	// Every chain lookup of NFT ingestion was answered from the capture: a miss would mean a
	// collection or token indexed from a made-up answer.
	for _, m := range srv.Misses() {
		if isNFTLookup(m.Path) {
			t.Errorf("NFT lookup not in the capture: %s", m)
		}
	}

	apiSrv := httptest.NewServer(api.New(api.Config{ChainID: st.ChainID, Features: profile.For(vm).API(db, profile.Options{InternalTxs: true}), AccountPrefix: "init"}, db, nil, nil))
	defer apiSrv.Close()

	compared := 0
	for _, rec := range readIndex(t, sampleDir) {
		if why := skipReason(rec.Path, vm, rec.Status); why != "" {
			t.Logf("not replayed (%s): %s", why, rec.Path)
			continue
		}
		compared++
		t.Run(rec.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(sampleDir, rec.File))
			if err != nil {
				t.Fatal(err)
			}
			status, ct, got := get(t, apiSrv.URL+rec.Path)
			// Success bodies are JSON at both; error bodies are JSON here by decision.
			if !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			if ruleByNameDecoded(t, sampleDir, rec, status, got) {
				return
			}
			compare(t, rec, want, status, got, w.types, vm)
		})
	}
	if compared == 0 {
		t.Fatal("no request compared")
	}
}

func skipReason(path string, vm vmkind.Kind, status int) string {
	if strings.HasPrefix(path, "/indexer/richlist/") && (vm != vmkind.Move || status != http.StatusOK) {
		// Move: the requests rollytics refused (an unescaped slash, a bad limit) do not
		// depend on the holders, so they are compared too.
		return ""
	}
	for _, s := range outOfScope {
		if strings.HasPrefix(path, s.prefix) {
			return s.why
		}
	}
	return ""
}

// compare applies the rules, then requires equal status and equal JSON.
func compare(t *testing.T, rec peerRecord, wantBody []byte, status int, gotBody []byte, knownMsgs map[string]bool, vm vmkind.Kind) {
	t.Helper()
	u, err := url.Parse(rec.Path)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()

	// Rule "rollytics 500 on by_account + msgs" (testdata/fixtures/README.md: rollytics' SQL is
	// ambiguous there; spec: "works like the other filtered lists"): expect 200 and a list
	// whose every tx carries one of the requested message types.
	if rec.Status == http.StatusInternalServerError && strings.Contains(u.Path, "/txs/by_account/") && q.Has("msgs") {
		if status != http.StatusOK {
			t.Fatalf("status %d, want 200 where rollytics failed with 500: %s", status, gotBody)
		}
		checkMsgFilter(t, gotBody, msgValues(q))
		return
	}

	// Rule "unknown rich-list denom" (spec: a well-formed denom nobody holds answers 200 with
	// an empty list at once; rollytics' EVM mode answers 400 with its node's error after ~46 s).
	if rec.Status == http.StatusBadRequest && strings.HasPrefix(u.Path, "/indexer/richlist/v1/") && strings.Contains(string(wantBody), "contracts/by_denom") {
		if status != http.StatusOK {
			t.Fatalf("status %d, want 200 with an empty list: %s", status, gotBody)
		}
		var r struct {
			Holders    []any `json:"holders"`
			Pagination struct {
				Total string `json:"total"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal(gotBody, &r); err != nil || r.Holders == nil || len(r.Holders) != 0 || r.Pagination.Total != "0" {
			t.Fatalf("unknown denom: %s, want an empty holders list with total 0", gotBody)
		}
		return
	}

	// Rule "JSON error bodies" (spec, first row): same status; the body is
	// {"code","message","details"} with the gRPC code of that status and rollytics' wording.
	if rec.Status >= 400 {
		if status != rec.Status {
			t.Fatalf("status %d, want %d (rollytics body %q); body %s", status, rec.Status, wantBody, gotBody)
		}
		var e struct {
			Code    *int            `json:"code"`
			Message *string         `json:"message"`
			Details json.RawMessage `json:"details"`
		}
		if err := json.Unmarshal(gotBody, &e); err != nil || e.Code == nil || e.Message == nil || string(e.Details) != "[]" {
			t.Fatalf("error body %s is not {code,message,details:[]}", gotBody)
		}
		grpc := map[int]int{400: 3, 404: 5, 500: 13, 503: 14, 504: 4}[status]
		if *e.Code != grpc {
			t.Errorf("error code %d, want %d for HTTP %d", *e.Code, grpc, status)
		}
		if wantMsg := strings.TrimSpace(string(wantBody)); *e.Message != wantMsg {
			t.Errorf("error message %q, want rollytics' %q", *e.Message, wantMsg)
		}
		return
	}
	if status != rec.Status {
		t.Fatalf("status %d, want %d; body %s", status, rec.Status, gotBody)
	}

	want, got := decode(t, "rollytics", wantBody), decode(t, "rollgate", gotBody)
	switch {
	case u.Path == "/status":
		ruleStatus(want, got, vm)
	case q.Has("msgs"):
		if ruleMsgs(t, q, knownMsgs, want, got) {
			return
		}
	case u.Path == "/indexer/block/v1/blocks" && q.Get("pagination.count_total") == "false":
		ruleBlocksCountTotal(t, want, got)
	case strings.HasPrefix(u.Path, "/indexer/nft/v1/collections") && !strings.HasPrefix(u.Path, "/indexer/nft/v1/collections/by_"):
		ruleCollectionTotal(t, want, got)
	}
	if strings.HasPrefix(u.Path, "/indexer/tx/v1/evm-txs") {
		ruleEVMExplorer(t, got)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s differs from rollytics (-rollytics +rollgate):\n%s", rec.Path, d)
	}
}

// ruleStatus: `version` and `commit_hash` describe the build, not the data (docs/contract/indexer.md: "/status
// fields as the notes", values are ours). internal_tx_height is compared as is. The EVM
// return cleanup and tx-account cleanup heights come from rollytics maintenance jobs rollgate has
// no need for (it extracts accounts right the first time); the fields are omitempty at the
// rollytics too, so they are dropped from rollytics' answer.
func ruleStatus(want, got any, vm vmkind.Kind) {
	for _, m := range []any{want, got} {
		if o, ok := m.(map[string]any); ok {
			delete(o, "version")
			delete(o, "commit_hash")
		}
	}
	if o, ok := want.(map[string]any); ok {
		// Rule "rich list without lag" (docs/contract/indexer.md): rollytics' list trails the blocks by 5 on
		// purpose; rollgate's moves with each block, so its rich_list_height is the height.
		// The Move rich list is off in this test (no /genesis in the capture), so there the
		// field is absent.
		if vm == vmkind.Move {
			delete(o, "rich_list_height")
		}
		if g, ok := got.(map[string]any); ok {
			if _, has := o["rich_list_height"]; has {
				if g["rich_list_height"] != g["height"] {
					o["rich_list_height"] = "rich_list_height must equal height"
				} else {
					o["rich_list_height"] = g["height"]
				}
			}
		}
		for _, k := range []string{"evm_ret_cleanup_height",
			"tx_account_cleanup_sequence", "tx_account_cleanup_deleted", "tx_account_cleanup_inserted"} {
			delete(o, k)
		}
	}
}

// ruleBlocksCountTotal: rollytics ignores count_total=false on the block list and still sends
// the total; testdata/fixtures/README.md lists that among rollytics' faults, and rollgate
// honours the parameter as on every other list ("0", rollytics' own value for an uncounted
// list). Only that one field may differ, and only to "0".
func ruleBlocksCountTotal(t *testing.T, want, got any) {
	t.Helper()
	w, _ := want.(map[string]any)
	g, _ := got.(map[string]any)
	wp, _ := w["pagination"].(map[string]any)
	gp, _ := g["pagination"].(map[string]any)
	if wp == nil || gp == nil {
		return
	}
	if gp["total"] != "0" && gp["total"] != wp["total"] {
		t.Errorf("count_total=false: total %v, want \"0\" (or rollytics' %v)", gp["total"], wp["total"])
	}
	gp["total"] = wp["total"]
}

// ruleMsgs covers the spec's `msgs` decision: rollgate splits comma-separated values, and a
// filter whose every type is unknown yields an empty list, where rollytics took "a,b" as one
// unknown type and dropped unknown filters altogether (answering as if unfiltered). When the
// rollytics' request hit either case, its answer is not the reference: rollgate's must be empty
// (all unknown) or exactly rollytics' unfiltered txs that carry one of the types (rollytics'
// page then held every tx, which the check requires). It returns true when it decided.
func ruleMsgs(t *testing.T, q url.Values, known map[string]bool, want, got any) bool {
	t.Helper()
	raw := q["msgs"]
	split := msgValues(q)
	anyKnown, rollyticsAllUnknown := false, true
	for _, m := range raw {
		if known[m] {
			rollyticsAllUnknown = false
		}
	}
	for _, m := range split {
		anyKnown = anyKnown || known[strings.TrimPrefix(m, "/")] // rollgate takes a type URL with or without its '/'
	}
	if !rollyticsAllUnknown {
		return false // rollytics applied the filter: compare as usual
	}
	gotObj, _ := got.(map[string]any)
	gotTxs, _ := gotObj["txs"].([]any)
	if !anyKnown {
		if len(gotTxs) != 0 || pagTotal(gotObj) != "0" {
			t.Errorf("msgs=%v are all unknown: want an empty list with total 0, got %d txs, total %s", raw, len(gotTxs), pagTotal(gotObj))
		}
		return true
	}
	wantObj, _ := want.(map[string]any)
	wantTxs, _ := wantObj["txs"].([]any)
	if pagTotal(wantObj) != fmt.Sprint(len(wantTxs)) {
		t.Fatalf("rollytics' unfiltered page (%d of %s txs) cannot serve as reference", len(wantTxs), pagTotal(wantObj))
	}
	set := map[string]bool{}
	for _, m := range split {
		set[strings.TrimPrefix(m, "/")] = true
	}
	var expect []any
	for _, tx := range wantTxs {
		if txHasMsg(tx, set) {
			expect = append(expect, tx)
		}
	}
	limit := 100
	if l := q.Get("pagination.limit"); l != "" {
		if _, err := fmt.Sscan(l, &limit); err != nil {
			t.Fatalf("pagination.limit %q: %v", l, err)
		}
	}
	if len(expect) > limit {
		expect = expect[:limit]
	}
	if d := cmp.Diff(expect, gotTxs, cmp.Comparer(func(a, b []any) bool { return cmp.Equal(a, b) })); d != "" {
		t.Errorf("msgs=%v (split %v) differs from rollytics' unfiltered list filtered by type (-want +got):\n%s", raw, split, d)
	}
	return true
}

func pagTotal(o map[string]any) string {
	p, _ := o["pagination"].(map[string]any)
	s, _ := p["total"].(string)
	return s
}

func msgValues(q url.Values) []string {
	var out []string
	for _, v := range q["msgs"] {
		for _, m := range strings.Split(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				out = append(out, m)
			}
		}
	}
	return out
}

func txHasMsg(tx any, types map[string]bool) bool {
	o, _ := tx.(map[string]any)
	inner, _ := o["tx"].(map[string]any)
	body, _ := inner["body"].(map[string]any)
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mo, _ := m.(map[string]any)
		if s, _ := mo["@type"].(string); types[strings.TrimPrefix(s, "/")] {
			return true
		}
	}
	return false
}

func checkMsgFilter(t *testing.T, body []byte, msgs []string) {
	t.Helper()
	var r struct {
		Txs []any `json:"txs"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	set := map[string]bool{}
	for _, m := range msgs {
		set[strings.TrimPrefix(m, "/")] = true
	}
	for i, tx := range r.Txs {
		if !txHasMsg(tx, set) {
			t.Errorf("tx %d carries none of %v", i, msgs)
		}
	}
}

func decode(t *testing.T, who string, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s body is not JSON: %v: %.300s", who, err, b)
	}
	return v
}

func get(t *testing.T, u string) (int, string, []byte) {
	t.Helper()
	return testutil.Get(t, u)
}

func readIndex(t *testing.T, dir string) []peerRecord {
	t.Helper()
	return testutil.ReadJSONL[peerRecord](t, filepath.Join(dir, "index.jsonl"))
}

// evmFeatures are the API features of the EVM rollup under test: its profile, internal txs on
// (rollytics' default).
func evmFeatures(r profile.Reader) api.Features {
	return profile.For(vmkind.EVM).API(r, profile.Options{InternalTxs: true})
}
