package api

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/store"
)

// manyAcc is the i-th account of the many-address fill.
func manyAcc(i int) []byte {
	h := sha256.Sum256([]byte("rollgate-many-address-stream-" + strconv.Itoa(i)))
	return h[:20]
}

// manyFiller writes blocks after the store's height, each with three txs and four transfers
// among six accounts, and keeps, independently of the store, which tx sequences and transfer
// ids name which accounts: the ground truth the streams are checked against.
type manyFiller struct {
	w    store.Writer
	h    int64
	seq  int64
	txs  map[int64][]int // sequence → accounts the tx names
	xfer map[int64][]int // transfer id → from, to
}

func (f *manyFiller) fill(t *testing.T, blocks int) {
	t.Helper()
	if f.txs == nil {
		f.txs, f.xfer = map[int64][]int{}, map[int64][]int{}
	}
	var batch []store.BlockBundle
	for range blocks {
		f.h++
		b := store.BlockBundle{Block: store.Block{ChainID: "c-1", Height: f.h, Hash: sum("block", f.h),
			Time: time.Unix(1700000000+f.h, 0).UTC(), TotalFee: json.RawMessage(`[]`)}}
		for i := range 3 {
			f.seq++
			// Tx i of height h names accounts (h+i)%6 and (h+2i+1)%6, the first signing.
			a, c := int(f.h+int64(i))%6, int(f.h+int64(2*i)+1)%6
			accs := []store.TxAccount{{Addr: manyAcc(a), Signer: true}}
			names := []int{a}
			if c != a {
				accs = append(accs, store.TxAccount{Addr: manyAcc(c)})
				names = append(names, c)
			}
			f.txs[f.seq] = names
			hash := sum("tx", f.seq)
			b.Txs = append(b.Txs, store.Tx{Hash: hash, Height: f.h, Index: i, Signer: manyAcc(a), MsgTypes: []string{"cosmos.bank.v1beta1.MsgSend"},
				Accounts: accs, JSON: json.RawMessage(fmt.Sprintf(`{"txhash":"%X","height":"%d","n":%d}`, hash, f.h, f.seq))})
		}
		var rows store.TransferRows
		for k := range 4 {
			from, to := int(f.h+int64(k))%6, int(f.h+int64(3*k)+2)%6
			rows = append(rows, store.Transfer{TxIndex: k % 3, MsgIndex: 0, Kind: store.TransferSend, From: manyAcc(from), To: manyAcc(to),
				Denom: "umany", Amount: strconv.Itoa(k + 1)})
			f.xfer[store.TransferID(f.h, k)] = []int{from, to}
		}
		b.Extensions = []store.ExtensionRows{rows}
		batch = append(batch, b)
	}
	if err := f.w.WriteBlocks(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
}

func sum(kind string, n int64) []byte {
	h := sha256.Sum256([]byte(kind + strconv.FormatInt(n, 10)))
	return h[:]
}

// want is the ids, in order, of the items naming any of accs.
func (f *manyFiller) want(items map[int64][]int, accs []int) []string {
	var ids []int64
	for id, names := range items {
		if slices.ContainsFunc(names, func(n int) bool { return slices.Contains(accs, n) }) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strconv.FormatInt(id, 10)
	}
	return out
}

func manyServer(t *testing.T, r store.Reader, cfg Config) string {
	t.Helper()
	tr, ok := r.(store.TransferReader)
	if !ok {
		t.Fatalf("%T reads no transfers", r)
	}
	cfg.ChainID, cfg.StreamPoll, cfg.Features.Transfers = "c-1", 20*time.Millisecond, tr
	srv := httptest.NewServer(NewServing(t.Context(), cfg, r, nil, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestManyAccountStreams: on both backends, over an API served from a separate reader, the tx
// and transfer streams of four accounts (one given twice, once in its 0x form) send every item
// naming any of them exactly once, in id order; a client that disconnects midway while more
// blocks are indexed resumes with Last-Event-ID and, with what it had, holds exactly the
// ground truth: nothing lost, nothing repeated, across pages the per-account walks cut.
func TestManyAccountStreams(t *testing.T) {
	watched := []int{0, 2, 3, 5}
	q := url.Values{}
	for _, i := range watched {
		q.Add("account", mustBech32(t, manyAcc(i)))
	}
	q.Add("account", address.Hex(manyAcc(0))) // the same account in its 0x form: collapsed
	for name, open := range streamStores() {
		t.Run(name, func(t *testing.T) {
			w, r := open(t)
			f := &manyFiller{w: w}
			f.fill(t, 60) // 180 txs, 240 transfers: more than a stream page for every account
			srv := manyServer(t, r, Config{})
			for _, c := range []struct {
				path, event string
				items       map[int64][]int
			}{
				{"/indexer/tx/v1/txs/stream", "tx", f.txs},
				{"/indexer/transfer/v1/transfers/stream", "transfer", f.xfer},
			} {
				t.Run(c.event, func(t *testing.T) {
					before := f.want(c.items, watched)
					s := openStream(t, srv+c.path+"?"+q.Encode(), "0")
					half := len(before) / 2
					var got []string
					for _, ev := range s.next(t, half) {
						if ev.Name != c.event {
							t.Fatalf("event %s %s", ev.Name, ev.Data)
						}
						got = append(got, ev.ID)
					}
					s.Resp.Body.Close() // the client goes away midway
					f.fill(t, 20)       // and more is indexed while it is away
					all := f.want(c.items, watched)
					s = openStream(t, srv+c.path+"?"+q.Encode(), got[len(got)-1])
					for _, ev := range s.next(t, len(all)-len(got)) {
						got = append(got, ev.ID)
					}
					if !slices.Equal(got, all) {
						t.Fatalf("%d ids, want %d\ngot  %v\nwant %v", len(got), len(all), got, all)
					}
					// Nothing more is owed: the next block's items are the next events.
					f.fill(t, 1)
					next := f.want(c.items, watched)[len(all):]
					for i, ev := range s.next(t, len(next)) {
						if ev.ID != next[i] {
							t.Fatalf("live event %d id %s, want %s", i, ev.ID, next[i])
						}
					}
					t.Logf("%s: %d events over %d accounts, resumed after %d", c.event, len(all)+len(next), len(watched), half)
				})
			}
			// A transfer event is the transfer as the by_tx list renders it.
			s := openStream(t, srv+"/indexer/transfer/v1/transfers/stream?account="+mustBech32(t, manyAcc(1)), "0")
			ev := s.next(t, 1)[0]
			id, _ := strconv.ParseInt(ev.ID, 10, 64)
			h := id >> store.TransferIDBits
			var list struct {
				Transfers []json.RawMessage `json:"transfers"`
			}
			resp, err := http.Get(fmt.Sprintf("%s/indexer/transfer/v1/transfers/by_account/%s?pagination.reverse=false&pagination.limit=1", srv, mustBech32(t, manyAcc(1))))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Transfers) != 1 {
				t.Fatalf("list: %v %d", err, len(list.Transfers))
			}
			if string(list.Transfers[0]) != string(ev.Data) {
				t.Errorf("transfer event (height %d)\n%s\nlist item\n%s", h, ev.Data, list.Transfers[0])
			}
		})
	}
}

func mustBech32(t *testing.T, b []byte) string {
	t.Helper()
	a, err := address.Bech32("init", b)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestManyAccountStreamsBadInput: what the many-address streams refuse before the stream
// opens (a JSON error naming the problem) and what they accept.
func TestManyAccountStreamsBadInput(t *testing.T) {
	_, r := streamStores()["sqlite"](t)
	srv := manyServer(t, r, Config{})
	many := func(n, distinct int) string {
		q := url.Values{}
		for i := range n {
			q.Add("account", mustBech32(t, manyAcc(i%distinct)))
		}
		return q.Encode()
	}
	for _, c := range []struct {
		name, query, lastID string
		status              int
		want                string // in the error body
	}{
		{"bad account", "account=xyz", "", 400, "invalid value for account: xyz"},
		{"one bad of several", "account=" + mustBech32(t, manyAcc(1)) + "&account=init1notanaddress", "", 400, "invalid value for account: init1notanaddress"},
		{"over the cap", many(MaxStreamAccounts+1, MaxStreamAccounts+1), "", 400, "at most 100"},
		{"at the cap", many(MaxStreamAccounts, MaxStreamAccounts), "", 200, ""},
		{"duplicates collapse under the cap", many(2*MaxStreamAccounts, MaxStreamAccounts), "", 200, ""},
		{"bad direction", "account=" + mustBech32(t, manyAcc(1)) + "&direction=sideways", "", 400, "invalid value for direction"},
		{"bad resume point", "account=" + mustBech32(t, manyAcc(1)), "abc", 400, "resume point"},
		{"bad epoch", "account=" + mustBech32(t, manyAcc(1)), "x:5", 400, "resume point"},
	} {
		for _, path := range []string{"/indexer/tx/v1/txs/stream", "/indexer/transfer/v1/transfers/stream"} {
			if c.name == "bad direction" && strings.Contains(path, "/tx/") {
				continue // the tx stream has no direction
			}
			t.Run(c.name+" "+path, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodGet, srv+path+"?"+c.query, nil)
				if c.lastID != "" {
					req.Header.Set("Last-Event-ID", c.lastID)
				}
				ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
				defer cancel()
				resp, err := http.DefaultClient.Do(req.WithContext(ctx))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if resp.StatusCode != c.status {
					b, _ := io.ReadAll(resp.Body)
					t.Fatalf("status %d %s, want %d", resp.StatusCode, b, c.status)
				}
				if c.status == 200 {
					return
				}
				b, _ := io.ReadAll(resp.Body)
				if !json.Valid(b) || !strings.Contains(string(b), c.want) {
					t.Errorf("body %s, want JSON with %q", b, c.want)
				}
			})
		}
	}
	// A chain without the transfers index has no transfer stream.
	srv2 := httptest.NewServer(New(Config{ChainID: "c"}, r, nil, nil))
	defer srv2.Close()
	resp, err := http.Get(srv2.URL + "/indexer/transfer/v1/transfers/stream?account=" + mustBech32(t, manyAcc(1)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("transfer stream without the index: %d", resp.StatusCode)
	}
}

// TestTransferStreamResumeRule: the transfer stream's resume points follow the one rule: on a
// store whose first height is 10, a point before the first retained id is
// RESUME_POINT_EXPIRED naming it, the point just before it resumes, and an id of another
// epoch is CHAIN_RESET.
func TestTransferStreamResumeRule(t *testing.T) {
	w, r := streamStores()["sqlite"](t)
	f := &manyFiller{w: w, h: 9}
	f.fill(t, 3) // heights 10..12
	srv := manyServer(t, r, Config{})
	acc := mustBech32(t, manyAcc(2))
	first := store.TransferID(10, 0)
	for _, c := range []struct {
		name, from, want string
	}{
		{"expired", strconv.FormatInt(first-2, 10), "RESUME_POINT_EXPIRED"},
		{"another epoch", "3:" + strconv.FormatInt(first, 10), "CHAIN_RESET"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openStream(t, srv+"/indexer/transfer/v1/transfers/stream?account="+acc, c.from)
			cut := time.AfterFunc(5*time.Second, func() { s.Resp.Body.Close() })
			evs := s.rest()
			cut.Stop()
			if len(evs) != 1 || evs[0].Name != "error" || !strings.Contains(string(evs[0].Data), c.want) {
				t.Fatalf("events %v, want one error %s", evs, c.want)
			}
			if c.want == "RESUME_POINT_EXPIRED" && !strings.Contains(string(evs[0].Data), strconv.FormatInt(first, 10)) {
				t.Errorf("%s does not name the first retained id %d", evs[0].Data, first)
			}
		})
	}
	s := openStream(t, srv+"/indexer/transfer/v1/transfers/stream?account="+acc, strconv.FormatInt(first-1, 10))
	evs := s.next(t, len(f.want(f.xfer, []int{2})))
	if evs[0].ID != f.want(f.xfer, []int{2})[0] {
		t.Errorf("resumed at %s, want %s", evs[0].ID, f.want(f.xfer, []int{2})[0])
	}
}

// TestMergeWalksHoldsBackACommitBetweenReads: the walks of a many-account stream are separate
// reads, so a block committed between two of them shows in the later ones only. The merge
// must not send that block's items (the stream would move past the same block's items of the
// earlier walks, which then never go out): it stops before them, and the next round, which the
// commit wakes, sends the block whole.
func TestMergeWalksHoldsBackACommitBetweenReads(t *testing.T) {
	type item struct{ key, height int64 }
	// Account 0's and account 1's items; height 3 is committed between the two reads of the
	// first round: account 0's read does not see its item 31, account 1's sees its item 32.
	held := [][]item{{{10, 1}, {20, 2}, {31, 3}}, {{11, 1}, {32, 3}}}
	committed := int64(2)
	walk := func(_ context.Context, i int, after int64) ([]item, error) {
		var out []item
		for _, it := range held[i] {
			if it.key > after && (it.height <= committed || i == 1) {
				out = append(out, it)
			}
		}
		if i == 1 {
			committed = 3 // the commit lands after account 0's read
		}
		return out, nil
	}
	key := func(it item) int64 { return it.key }
	height := func(it item) int64 { return it.height }
	var top int64
	indexed := func(context.Context) (int64, error) { top = committed; return top, nil }

	var sent []int64
	after := int64(0)
	for round := range 2 {
		items, more, err := mergeWalks(t.Context(), 2, after, walk, key, height, indexed)
		if err != nil || more {
			t.Fatalf("round %d: more %v, err %v", round, more, err)
		}
		for _, it := range items {
			sent = append(sent, it.key)
			after = it.key
		}
	}
	if want := []int64{10, 11, 20, 31, 32}; !slices.Equal(sent, want) {
		t.Fatalf("sent %v, want %v (indexed height %d)", sent, want, top)
	}
}
