package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDenomFormulas(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{IBCDenom("transfer/channel-3/uusdc"), "ibc/6490A7EAB61059BFC1CDDEB05917DD70BDF3A611654162A1A47DB930D40D8AF4"},
		{IBCDenom("transfer/channel-0/transfer/channel-3/uusdc"), "ibc/AA4E7DF065DC4D4B29B8662A919295F525B19251FB2618C41C0DED3BD1128FEE"},
		{IBCDenom("uinit"), "uinit"},
		{L2Denom(16, "uinit"), "l2/23c8396041db74441f4268d0c7e0533177dc3e028a47a8e584318f2d0c46fbe9"},
		{L2Denom(12, "uinit"), "l2/2b2d36f666e98b9eecf70d6ec24b882b79f2c8e2af73f54f97b8b670dbb87605"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

func TestSplitPath(t *testing.T) {
	for _, tc := range []struct{ in, trace, base string }{
		{"uatom", "", "uatom"},
		{"transfer/channel-0/uatom", "transfer/channel-0", "uatom"},
		{"transfer/channel-0/transfer/channel-3/uatom", "transfer/channel-0/transfer/channel-3", "uatom"},
		{"transfer/channel-0/l2/abc", "transfer/channel-0", "l2/abc"},
		{"transfer/channel-0/factory/init1x/foo", "transfer/channel-0", "factory/init1x/foo"},
		{"transfer/notachannel/x", "", "transfer/notachannel/x"},
		{"transfer/channel-0", "", "transfer/channel-0"},
	} {
		tr, b := SplitPath(tc.in)
		if tr != tc.trace || b != tc.base {
			t.Errorf("SplitPath(%q) = %q, %q; want %q, %q", tc.in, tr, b, tc.trace, tc.base)
		}
	}
	if got := ReceivedPath("transfer/channel-3/uatom", "transfer", "channel-3", "transfer", "channel-0"); got != "uatom" {
		t.Errorf("unwind: %s", got)
	}
	if got := ReceivedPath("uinit", "transfer", "channel-0", "transfer", "channel-9"); got != "transfer/channel-9/uinit" {
		t.Errorf("wrap: %s", got)
	}
}

func TestLoadDevnet(t *testing.T) {
	r, err := Load("testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Chains) != 6 {
		t.Fatalf("chains = %d", len(r.Chains))
	}
	l1 := r.Chain("initia-devnet-1")
	if l1 == nil || !l1.L1 || !l1.PFM {
		t.Fatalf("L1 = %+v", l1)
	}
	ch, ok := l1.Channel("channel-3")
	if !ok || ch.CounterpartyChainID != "cosmoshub-devnet-1" || ch.CounterpartyID != "channel-0" {
		t.Fatalf("channel-3 = %+v", ch)
	}
	evm := r.Chain("minievm-devnet-1")
	if evm.BridgeID != 1 || evm.MinitiaType != "minievm" || evm.EVMChainID != "2001" {
		t.Fatalf("minievm = %+v", evm)
	}
	init := evm.Asset(L2Denom(1, "uinit"))
	if init == nil || init.OP == nil || init.OP.L1Denom != "uinit" {
		t.Fatalf("l2 INIT = %+v", init)
	}
	atom := r.Chain("miniwasm-devnet-1").Asset(IBCDenom("transfer/channel-0/transfer/channel-3/uatom"))
	if atom == nil || atom.OriginChainID != "cosmoshub-devnet-1" || atom.OriginDenom != "uatom" || atom.Trace != "transfer/channel-0/transfer/channel-3" {
		t.Fatalf("atom on miniwasm = %+v", atom)
	}
	eth := r.Chain("31337")
	if eth == nil || eth.Type != ChainTypeEVM || eth.LZEndpointID != 40161 {
		t.Fatalf("eth = %+v", eth)
	}
	if u := eth.Asset("0x5fbdb2315678afecb367f032d93f642f64180aa3"); u == nil || u.LZ == nil || !u.LZ.NeedsApproval || u.LZ.PeerChainID != "initia-devnet-1" {
		t.Fatalf("usdt = %+v", u)
	}
}

type fakeSource struct {
	bridges []BridgeInfo
	pairs   map[uint64][]TokenPair
	chans   map[string][]ChannelState
	fail    string
}

func (f fakeSource) Bridges(ctx context.Context, l1 *Chain) ([]BridgeInfo, error) {
	return f.bridges, nil
}
func (f fakeSource) TokenPairs(ctx context.Context, l1 *Chain, id uint64) ([]TokenPair, error) {
	return f.pairs[id], nil
}
func (f fakeSource) Channels(ctx context.Context, c *Chain) ([]ChannelState, error) {
	if c.ID == f.fail {
		return nil, errors.New("down")
	}
	return f.chans[c.ID], nil
}

func TestRefresh(t *testing.T) {
	r, err := Load("testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	src := fakeSource{
		bridges: []BridgeInfo{{ID: 2, FinalizationPeriod: time.Hour}},
		pairs: map[uint64][]TokenPair{2: {
			{L1Denom: "uinit", L2Denom: L2Denom(2, "uinit")},
			{L1Denom: IBCDenom("transfer/channel-3/uatom"), L2Denom: L2Denom(2, IBCDenom("transfer/channel-3/uatom"))},
			{L1Denom: "ubad", L2Denom: "l2/wrong"},
		}},
		chans: map[string][]ChannelState{"initia-devnet-1": {{Port: "transfer", ID: "channel-3", CounterpartyPort: "transfer", CounterpartyID: "channel-0", State: "STATE_CLOSED"}}},
		fail:  "cosmoshub-devnet-1",
	}
	live := NewLive(r)
	err = live.Refresh(context.Background(), src)
	if err == nil {
		t.Fatal("want the unreachable chain's error")
	}
	n := live.Current()
	mm := n.Chain("minimove-devnet-1")
	if mm.OPFinalization != time.Hour {
		t.Errorf("finalization = %v", mm.OPFinalization)
	}
	added := mm.Asset(L2Denom(2, IBCDenom("transfer/channel-3/uatom")))
	if added == nil || added.Symbol != "ATOM" || added.OP.BridgeID != 2 {
		t.Errorf("added pair asset = %+v", added)
	}
	if mm.Asset("l2/wrong") != nil {
		t.Error("a pair whose l2 denom does not match the formula was added")
	}
	if ch, _ := n.Chain("initia-devnet-1").Channel("channel-3"); ch.Usable() {
		t.Error("closed channel still usable")
	}
	// The old snapshot is untouched.
	if ch, _ := r.Chain("initia-devnet-1").Channel("channel-3"); !ch.Usable() || r.Chain("minimove-devnet-1").Asset(L2Denom(2, IBCDenom("transfer/channel-3/uatom"))) != nil {
		t.Error("refresh mutated the previous snapshot")
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadIBCPairsAndErrors(t *testing.T) {
	chainA := `{"chain_name":"a","chain_id":"a-1","bech32_prefix":"a","metadata":{"ibc_channels":[
		{"chain_id":"b-1","port_id":"transfer","channel_id":"channel-4","version":"ics20-1"},
		{"chain_id":"b-1","port_id":"transfer","channel_id":"channel-5","version":{"fee_version":"ics29-1","app_version":"ics20-1"}},
		{"chain_id":"b-1","port_id":"nft-transfer","channel_id":"channel-6","version":"ics721-1"}]}}`
	chainB := `{"chain_name":"b","chain_id":"b-1","bech32_prefix":"b","metadata":{"ibc_channels":[
		{"chain_id":"a-1","port_id":"transfer","channel_id":"channel-0"},{"chain_id":"a-1","port_id":"transfer","channel_id":"channel-1"}]}}`
	pair := `{"chain_1":{"chain_name":"a"},"chain_2":{"chain_name":"b"},"channels":[
		{"chain_1":{"channel_id":"channel-5","port_id":"transfer"},"chain_2":{"channel_id":"channel-1","port_id":"transfer"},"version":"ics20-1"}]}`
	t.Run("ibc_pairs", func(t *testing.T) {
		r, err := Load(writeFiles(t, map[string]string{"a/chain.json": chainA, "b/chain.json": chainB, "_IBC/a-b.json": pair}))
		if err != nil {
			t.Fatal(err)
		}
		a := r.Chain("a-1")
		if len(a.Channels) != 2 {
			t.Fatalf("transfer channels = %+v", a.Channels)
		}
		// Two channels between the pair: only the one _IBC names is matched.
		if c4, _ := a.Channel("channel-4"); c4.Usable() {
			t.Errorf("ambiguous channel-4 matched: %+v", c4)
		}
		if c5, _ := a.Channel("channel-5"); c5.CounterpartyID != "channel-1" || c5.Version != "ics20-1" {
			t.Errorf("channel-5 = %+v", c5)
		}
		if b1, _ := r.Chain("b-1").Channel("channel-1"); b1.CounterpartyID != "channel-5" {
			t.Errorf("b channel-1 = %+v", b1)
		}
	})
}

// TestLoadSkipsWhatItCannotUse: one entry the loader cannot use (malformed, disagreeing with
// the denom formulas, of an unknown trace type, a duplicate) is skipped with one warning
// naming its file and entry; everything else of the registry loads.
func TestLoadSkipsWhatItCannotUse(t *testing.T) {
	good := `{"base":"ugood","display":"good","denom_units":[{"denom":"ugood","exponent":0},{"denom":"good","exponent":6}]}`
	chainA := `{"chain_name":"a","chain_id":"a-1","bech32_prefix":"a"}`
	evmChain := `{"chain_name":"a","chain_id":"a-1","bech32_prefix":"init","metadata":{"op_bridge_id":"3","minitia":{"type":"minievm"}}}`
	chainB := `{"chain_name":"b","chain_id":"b-1","bech32_prefix":"b"}`
	wrapped := func(hop string) string {
		return `{"base":"evm/df5A85F89731fEB77d7EEaaCe627EB135eDB46DB","display":"X","denom_units":[{"denom":"evm/df5A85F89731fEB77d7EEaaCe627EB135eDB46DB","exponent":0},{"denom":"X","exponent":18}],
			"traces":[` + hop + `]}`
	}
	wrapHop := func(chainID, denom, contract string) string {
		return `{"type":"wrapped","counterparty":{"chain_name":"a","chain_id":"` + chainID + `","base_denom":"` + denom + `"},"chain":{"contract":"` + contract + `"}}`
	}
	const wrapper = "0xB24905344757Bf9CE80442fE1245A9019ee2d749"
	for _, tc := range []struct {
		name      string
		chain     string
		assets    string
		wantWarn  string // the entry named in the warning
		wantErr   string // an error text the warning carries
		wantChain bool   // chain a-1 still loads
	}{
		{"ibc_hash_mismatch", chainA, `{"assets":[{"base":"ibc/0000","traces":[{"type":"ibc","chain":{"path":"transfer/channel-0/uatom"}}]},` + good + `]}`,
			"ibc/0000", "hashes to", true},
		{"l2_hash_mismatch", `{"chain_name":"a","chain_id":"a-1","bech32_prefix":"a","metadata":{"op_bridge_id":"3"}}`,
			`{"assets":[{"base":"` + L2Denom(2, "uinit") + `","traces":[{"type":"op","counterparty":{"base_denom":"uinit"},"chain":{"bridge_id":"3"}}]},` + good + `]}`,
			L2Denom(2, "uinit"), "op trace (bridge 3, uinit) gives", true},
		{"unknown_trace_type", chainA, `{"assets":[{"base":"usynth","traces":[{"type":"synthetic","counterparty":{"base_denom":"x"}}]},` + good + `]}`,
			"usynth", `trace type "synthetic"`, true},
		{"malformed_entry", chainA, `{"assets":[{"base":"ubad","denom_units":[{"denom":"ubad","exponent":"six"}]},` + good + `]}`,
			"ubad", "cannot unmarshal", true},
		{"entry_not_an_object", chainA, `{"assets":[42,` + good + `]}`, "assets[0]", "cannot unmarshal", true},
		{"display_unit_missing", chainA, `{"assets":[{"base":"ux","display":"X","denom_units":[{"denom":"ux","exponent":0}]},` + good + `]}`,
			"ux", "display", true},
		{"duplicate_asset", chainA, `{"assets":[` + good + `,` + good + `]}`, "ugood", "duplicate asset", true},
		{"wrapped_on_other_chain", evmChain, `{"assets":[` + wrapped(wrapHop("b-1", L2Denom(3, "uinit"), wrapper)) + `,` + good + `]}`,
			"evm/df5A85F89731fEB77d7EEaaCe627EB135eDB46DB", "own chain", true},
		{"wrapped_bad_contract", evmChain, `{"assets":[` + wrapped(wrapHop("a-1", L2Denom(3, "uinit"), "0x12")) + `,` + good + `]}`,
			"evm/df5A85F89731fEB77d7EEaaCe627EB135eDB46DB", "not a 0x address", true},
		{"wrapped_after_wrong_op_hop", evmChain, `{"assets":[` + wrapped(`{"type":"op","counterparty":{"chain_id":"b-1","base_denom":"uinit"},"chain":{"bridge_id":"4"}},`+
			wrapHop("a-1", L2Denom(3, "uinit"), wrapper)) + `,` + good + `]}`,
			"evm/df5A85F89731fEB77d7EEaaCe627EB135eDB46DB", "op trace (bridge 4, uinit) gives", true},
		{"asset_list_not_json", chainA, `{"assets":`, "", "unexpected end", true},
		{"bad_bridge_id", `{"chain_name":"a","chain_id":"a-1","bech32_prefix":"a","metadata":{"op_bridge_id":"x"}}`, `{"assets":[]}`, "", "op_bridge_id", false},
		{"no_prefix", `{"chain_name":"a","chain_id":"a-1"}`, `{"assets":[]}`, "", "bech32_prefix", false},
		{"bad_type", `{"chain_name":"a","chain_id":"a-1","chain_type":"svm"}`, `{"assets":[]}`, "", "chain_type", false},
		{"chain_not_json", `{`, `{}`, "", "unexpected end", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			r, err := LoadLogged(writeFiles(t, map[string]string{"a/chain.json": tc.chain, "a/assetlist.json": tc.assets, "b/chain.json": chainB}), log)
			if err != nil {
				t.Fatalf("the whole registry was refused: %v", err)
			}
			if r.Chain("b-1") == nil {
				t.Fatal("chain b-1 lost")
			}
			lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
			if len(lines) != 1 {
				t.Fatalf("want one warning, got %q", logs.String())
			}
			var w map[string]any
			if err := json.Unmarshal([]byte(lines[0]), &w); err != nil {
				t.Fatal(err)
			}
			wantFile := "a/assetlist.json"
			if !tc.wantChain {
				wantFile = "a/chain.json"
			}
			if w["level"] != "WARN" || w["file"] != wantFile || !strings.Contains(fmt.Sprint(w["err"]), tc.wantErr) {
				t.Errorf("warning = %v, want file %s, err containing %q", w, wantFile, tc.wantErr)
			}
			if tc.wantWarn != "" && w["asset"] != tc.wantWarn {
				t.Errorf("warning names asset %v, want %s", w["asset"], tc.wantWarn)
			}
			a := r.Chain("a-1")
			if (a != nil) != tc.wantChain {
				t.Fatalf("chain a-1 loaded = %v, want %v", a != nil, tc.wantChain)
			}
			if a != nil && tc.name != "asset_list_not_json" && (a.Asset("ugood") == nil || len(a.Assets) != 1) {
				t.Errorf("assets = %+v, want ugood alone", a.Assets)
			}
		})
	}
	t.Run("no_chain_at_all", func(t *testing.T) {
		if _, err := LoadLogged(writeFiles(t, map[string]string{"a/chain.json": `{`}), nil); err == nil {
			t.Error("a registry without a usable chain loaded")
		}
	})
}

// TestRESTSource refreshes the devnet registry from a fake L1 REST gateway through the
// project's cosmosrest client.
func TestRESTSource(t *testing.T) {
	atom := IBCDenom("transfer/channel-3/uatom")
	mux := http.NewServeMux()
	mux.HandleFunc("/opinit/ophost/v1/bridges", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"bridges":[{"bridge_id":"2","bridge_addr":"init1x","bridge_config":{"finalization_period":"90s"}}],"pagination":{"next_key":null}}`)
	})
	mux.HandleFunc("/opinit/ophost/v1/bridges/2/token_pairs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"token_pairs":[{"l1_denom":"uinit","l2_denom":"%s"},{"l1_denom":"%s","l2_denom":"%s"}],"pagination":{"next_key":null}}`,
			L2Denom(2, "uinit"), atom, L2Denom(2, atom))
	})
	mux.HandleFunc("/ibc/core/channel/v1/channels", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"channels":[{"state":"STATE_CLOSED","ordering":"ORDER_UNORDERED","counterparty":{"port_id":"transfer","channel_id":"channel-0"},"connection_hops":["connection-3"],"version":"ics20-1","port_id":"transfer","channel_id":"channel-3"}],"pagination":{"next_key":null}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	r, err := Load("testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	l1 := r.Chain("initia-devnet-1")
	l1.REST = []string{srv.URL}
	only := &Registry{Chains: []*Chain{l1, r.Chain("minimove-devnet-1")}, byID: map[string]*Chain{}, byName: map[string]*Chain{}}
	for _, c := range only.Chains {
		only.byID[c.ID], only.byName[c.Name] = c, c
	}
	only.Chains[1].REST = []string{srv.URL}
	n, err := only.Refresh(context.Background(), &RESTSource{})
	if err != nil {
		t.Fatal(err)
	}
	mm := n.Chain("minimove-devnet-1")
	if mm.OPFinalization != 90*time.Second || mm.Asset(L2Denom(2, atom)) == nil {
		t.Errorf("minimove after refresh: %v, %v", mm.OPFinalization, mm.Asset(L2Denom(2, atom)))
	}
	if ch, _ := n.Chain("initia-devnet-1").Channel("channel-3"); ch.State != "STATE_CLOSED" || ch.Usable() {
		t.Errorf("channel-3 = %+v", ch)
	}
}

// TestModuleSupport: authz and feegrant are what chain.json states, false when it is silent.
func TestModuleSupport(t *testing.T) {
	for _, tc := range []struct {
		name, metadata  string
		authz, feegrant bool
	}{
		{"silent", `{}`, false, false},
		{"both", `{"cosmos_module_support":{"authz":true,"feegrant":true}}`, true, true},
		{"authz_only", `{"cosmos_module_support":{"authz":true}}`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseChain([]byte(`{"chain_name":"x","chain_id":"x-1","bech32_prefix":"x","metadata":` + tc.metadata + `}`))
			if err != nil {
				t.Fatal(err)
			}
			if c.Authz != tc.authz || c.Feegrant != tc.feegrant {
				t.Errorf("authz=%v feegrant=%v, want %v %v", c.Authz, c.Feegrant, tc.authz, tc.feegrant)
			}
		})
	}
}

// TestRunLogsChangesOnly: the first refresh and a refresh that changes the snapshot log at
// info, a chain that stays down warns once, and unchanged refreshes stay at debug.
func TestRunLogsChangesOnly(t *testing.T) {
	r, err := Load("testdata/registry")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	NewLive(r).Run(ctx, fakeSource{fail: "cosmoshub-devnet-1"}, 5*time.Millisecond, log)
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if n := strings.Count(out, `msg="registry refreshed"`); n != 1 {
		t.Errorf("%d info refresh lines over ~40 unchanged refreshes:\n%s", n, out)
	}
	if n := strings.Count(out, "level=WARN"); n != 1 || !strings.Contains(out, "cosmoshub-devnet-1") {
		t.Errorf("%d warnings for one chain staying down:\n%s", n, out)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestLoadInitiaRegistry loads the pinned snapshot of initia-labs/initia-registry
// (testdata/initia-registry/README.md) as published: every chain and every asset its files
// list, with no warning, the `evm/…` wrapper tokens with their 18 decimals and the coin they
// wrap reachable as an unlisted asset of the same chain.
func TestLoadInitiaRegistry(t *testing.T) {
	for _, network := range []string{"mainnets", "testnets"} {
		t.Run(network, func(t *testing.T) {
			dir := filepath.Join("testdata/initia-registry", network)
			var logs bytes.Buffer
			r, err := LoadLogged(dir, slog.New(slog.NewTextHandler(&logs, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if logs.Len() != 0 {
				t.Errorf("warnings:\n%s", logs.String())
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*", "chain.json"))
			if len(files) == 0 || len(r.Chains) != len(files) {
				t.Fatalf("chains = %d, chain.json files = %d", len(r.Chains), len(files))
			}
			wrapped := 0
			for _, f := range files {
				var cf struct {
					ChainID string `json:"chain_id"`
				}
				var al struct {
					Assets []struct {
						Base   string `json:"base"`
						Traces []struct {
							Type string `json:"type"`
						} `json:"traces"`
					} `json:"assets"`
				}
				raw, _ := os.ReadFile(f)
				if err := json.Unmarshal(raw, &cf); err != nil {
					t.Fatal(err)
				}
				c := r.Chain(cf.ChainID)
				if c == nil {
					t.Fatalf("%s: chain %s missing", f, cf.ChainID)
				}
				raw, err := os.ReadFile(filepath.Join(filepath.Dir(f), "assetlist.json"))
				if err != nil {
					continue
				}
				if err := json.Unmarshal(raw, &al); err != nil {
					t.Fatal(err)
				}
				if len(c.Assets) != len(al.Assets) {
					t.Errorf("%s: %d assets, the file lists %d", c.ID, len(c.Assets), len(al.Assets))
				}
				for _, fa := range al.Assets {
					a := c.Asset(fa.Base)
					if a == nil || a.Unlisted || a.Hidden {
						t.Errorf("%s: asset %s = %+v", c.ID, fa.Base, a)
						continue
					}
					if n := len(fa.Traces); n == 0 || fa.Traces[n-1].Type != "wrapped" {
						continue
					}
					wrapped++
					w := a.Wrap
					if !strings.HasPrefix(a.Denom, "evm/") || a.Decimals != 18 || w == nil || w.LocalDecimals != 18 || w.RemoteDecimals != 6 || !isHexAddress(w.Contract) {
						t.Errorf("%s: wrapped %s = %+v, wrap %+v", c.ID, a.Denom, a, w)
						continue
					}
					remote := c.Asset(w.RemoteDenom)
					if remote == nil || !remote.Unlisted || remote.Decimals != 6 || (remote.OP == nil && remote.Trace == "") {
						t.Errorf("%s: the coin %s wraps = %+v", c.ID, a.Denom, remote)
					}
				}
			}
			if wrapped == 0 {
				t.Error("no wrapped asset in the snapshot")
			}
		})
	}
}

// TestLoadIgnoresUnreadMembers: members the loader does not use never cost an entry, whatever
// their shape (the loader decoded none of them before the formats were shared), while a
// malformed member it uses still does.
func TestLoadIgnoresUnreadMembers(t *testing.T) {
	chain := `{"$schema":1,"chain_name":"a","chain_id":"a-1","bech32_prefix":"a","slip44":"118","key_algos":"secp256k1","images":{"png":1},
		"apis":{"rpc":[{"address":"http://rpc","provider":7}],"grpc":"x","indexer":[1]},"fees":{"fee_tokens":[{"denom":"ua","fixed_min_gas_price":0.15}]},
		"metadata":{"assetlist":3,"op_bridge_id":"2"}}`
	assets := `{"assets":[{"base":"ua","display":"a","oracle_symbol":5,"token_type":[],"images":"x","denom_units":[{"denom":"ua","exponent":0},{"denom":"a","exponent":6}]},
		{"base":"ub","images":"x","symbol":5}]}`
	pair := `{"$schema":2,"chain_1":{"chain_name":"a","client_id":3},"chain_2":{"chain_name":"b"},
		"channels":[{"chain_1":{"channel_id":"channel-0","port_id":"transfer"},"chain_2":{"channel_id":"channel-9","port_id":"transfer"},"ordering":1,"tags":"x","version":"ics20-1"}]}`
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r, err := LoadLogged(writeFiles(t, map[string]string{"a/chain.json": chain, "a/assetlist.json": assets,
		"b/chain.json": `{"chain_name":"b","chain_id":"b-1","bech32_prefix":"b","slip44":"x"}`, "_IBC/a-b.json": pair,
		"c/chain.json": `{"chain_name":"c","chain_id":"c-1","bech32_prefix":"c","slip44":"x","chain_type":5}`}), log)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Chain("a-1")
	if a == nil || a.BridgeID != 2 || len(a.RPC) != 1 || a.RPC[0] != "http://rpc" || a.FeeTokens[0].Min != "0.15" {
		t.Fatalf("chain a-1 = %+v", a)
	}
	if ch, ok := a.Channel("channel-0"); !ok || ch.CounterpartyChainID != "b-1" || ch.CounterpartyID != "channel-9" {
		t.Errorf("channel-0 from the _IBC pair: %+v", ch)
	}
	if len(a.Assets) != 1 || a.Asset("ua") == nil || a.Asset("ua").Decimals != 6 || r.Chain("b-1") == nil || r.Chain("c-1") != nil {
		t.Errorf("assets %+v, chains %d", a.Assets, len(r.Chains))
	}
	want := []string{`"file":"a/assetlist.json","asset":"ub","err":"json: cannot unmarshal number into Go struct field Asset.symbol of type string"`,
		`"file":"c/chain.json","err":"json: cannot unmarshal number into Go struct field Chain.chain_type of type string"`}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("warnings %q, want %d", lines, len(want))
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("warning %s, want %s", lines[i], w)
		}
	}
}
