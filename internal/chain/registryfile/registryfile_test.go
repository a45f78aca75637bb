package registryfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

const (
	snapshot  = "../../router/registry/testdata/initia-registry"
	devnetDir = "../../router/registry/testdata/devnet"
)

// unmodeled are the members of the snapshot's files the types do not hold (chain.json's
// codebase, explorers, peers, ...): a round trip drops exactly these. A member missing here
// that a round trip drops is one the types lose.
var unmodeled = []string{
	"chain.apis.grpc[].authorizedUser",
	"chain.apis.rest[].authorizedUser",
	"chain.apis.rpc[].authorizedUser",
	"chain.codebase",
	"chain.daemon_name",
	"chain.description",
	"chain.explorers",
	"chain.node_home",
	"chain.peers",
	"chain.staking",
	"chain.status",
	"chain.website",
}

// TestRoundTripSnapshot reads every file of the real initia-registry snapshot with the types,
// writes it back and compares the two JSON documents member by member: every member written
// has the original's value, and every member of the original is written unless it is one the
// types do not model. A zero value ("", [], {}, false, 0) and an absent member are the same to
// every reader, so either side may leave one out (the devnet omits empty traces, the
// snapshot writes "coingecko_id": "").
func TestRoundTripSnapshot(t *testing.T) {
	dropped := map[string]bool{}
	files := 0
	for _, kind := range []struct {
		glob, root string
		new        func() any
	}{
		{"*/*/" + ChainFile, "chain", func() any { return new(Chain) }},
		{"*/*/" + AssetListFile, "assetlist", func() any { return new(AssetList) }},
		{"*/" + IBCDir + "/*.json", "ibc", func() any { return new(IBCPair) }},
	} {
		paths, err := filepath.Glob(filepath.Join(snapshot, kind.glob))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: no files (%v)", kind.glob, err)
		}
		for _, p := range paths {
			raw, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			v := kind.new()
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			compare(t, p, kind.root, decode(t, raw), decode(t, out), dropped)
			files++
		}
	}
	var got []string
	for k := range dropped {
		got = append(got, k)
	}
	sort.Strings(got)
	if !slices.Equal(got, unmodeled) {
		t.Errorf("members dropped by a round trip:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(unmodeled, "\n"))
	}
	if files != 28 {
		t.Errorf("%d files read, want the snapshot's 28", files)
	}
}

// TestRoundTripDevnetBytes reads the devnet's registry (the router's committed copy of what
// the devnet writes with these types) and writes it again: the bytes must not change, so
// the types hold every member the devnet writes, in its order and omission rules.
func TestRoundTripDevnetBytes(t *testing.T) {
	entries, err := Read(devnetDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 6 {
		t.Fatalf("%d chains, want 6", len(entries))
	}
	out := t.TempDir()
	for _, e := range entries {
		if e.AssetList == nil {
			t.Fatalf("%s: no assetlist", e.Dir)
		}
		if err := WriteChain(out, e.Chain); err != nil {
			t.Fatal(err)
		}
		if err := WriteAssetList(out, *e.AssetList); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{ChainFile, AssetListFile} {
			want, err := os.ReadFile(filepath.Join(devnetDir, e.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(out, e.Chain.ChainName, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s: rewritten bytes differ:\n%s", e.Dir, f, got)
			}
		}
	}
}

// TestReaderVariants checks the shapes of the real registry a reader must accept.
func TestReaderVariants(t *testing.T) {
	var c Chain
	raw := `{"chain_id":"x","evm_chain_id":"2594729740794688","fees":{"fee_tokens":[{"denom":"u","fixed_min_gas_price":0.015}]},
		"metadata":{"ibc_channels":[{"channel_id":"channel-0","version":{"fee_version":"ics29-1","app_version":"ics20-1"}},
		{"channel_id":"channel-1","version":"ics721-1"},{"channel_id":"channel-2","version":7}]},"unknown":{"a":1}}`
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		t.Fatal(err)
	}
	if string(c.EVMChainID) != `"2594729740794688"` {
		t.Errorf("evm_chain_id kept as %s", c.EVMChainID)
	}
	if ft := c.Fees.FeeTokens[0]; ft.FixedMinGasPrice != "0.015" || ft.LowGasPrice != "" {
		t.Errorf("fee token %+v", ft)
	}
	var versions []string
	for _, ch := range c.Metadata.IBCChannels {
		versions = append(versions, ch.AppVersion())
	}
	if want := []string{"ics20-1", "ics721-1", ""}; !slices.Equal(versions, want) {
		t.Errorf("versions %q, want %q", versions, want)
	}
	if err := json.Unmarshal([]byte(`{"evm_chain_id":2594729740794688}`), &c); err != nil || string(c.EVMChainID) != "2594729740794688" {
		t.Errorf("numeric evm_chain_id: %s, %v", c.EVMChainID, err)
	}
}

// TestTraceOrder pins the member order of both trace layouts.
func TestTraceOrder(t *testing.T) {
	op, _ := json.Marshal(Trace{Type: "op", Counterparty: TraceCounterparty{ChainName: "initia", ChainID: "i-1", BaseDenom: "uinit"},
		Chain: TraceChain{BridgeID: "1"}})
	if want := `{"type":"op","counterparty":{"chain_name":"initia","chain_id":"i-1","base_denom":"uinit"},"chain":{"bridge_id":"1"}}`; string(op) != want {
		t.Errorf("op trace %s, want %s", op, want)
	}
	lz, _ := json.Marshal(Trace{Type: "bridge", Provider: "LayerZero", Counterparty: TraceCounterparty{ChainName: "e", ChainID: "1", BaseDenom: "0xa"}})
	if want := `{"chain":{},"counterparty":{"base_denom":"0xa","chain_id":"1","chain_name":"e"},"provider":"LayerZero","type":"bridge"}`; string(lz) != want {
		t.Errorf("bridge trace %s, want %s", lz, want)
	}
}

func TestNetworkDirs(t *testing.T) {
	dirs, err := NetworkDirs(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(snapshot, "mainnets"), filepath.Join(snapshot, "testnets")}; !slices.Equal(dirs, want) {
		t.Errorf("checkout: %q, want %q", dirs, want)
	}
	if dirs, err = NetworkDirs(devnetDir); err != nil || !slices.Equal(dirs, []string{devnetDir}) {
		t.Errorf("flat: %q, %v", dirs, err)
	}
	if _, err := NetworkDirs(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing root gave no error")
	}
	names, err := ChainDirs(filepath.Join(snapshot, "testnets"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"evm", "inertia", "initia", "move", "wasm"}; !slices.Equal(names, want) {
		t.Errorf("chain dirs %q, want %q (_IBC left out)", names, want)
	}
	if n := len(IBCPairFiles(filepath.Join(snapshot, "testnets"))); n != 2 {
		t.Errorf("%d _IBC files, want 2", n)
	}
}

func TestReadAll(t *testing.T) {
	entries, err := ReadAll(snapshot)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range entries {
		count[e.Network]++
		if e.Chain.ChainName == "" || e.AssetList == nil || len(e.AssetList.Assets) == 0 {
			t.Errorf("%s/%s: chain %q, assetlist %v", e.Network, e.Dir, e.Chain.ChainName, e.AssetList != nil)
		}
	}
	if count["mainnets"] != 8 || count["testnets"] != 5 || len(entries) != 13 {
		t.Errorf("chains per network %v, want mainnets 8, testnets 5", count)
	}
	flat, err := ReadAll(devnetDir)
	if err != nil || len(flat) != 6 || flat[0].Network != "" {
		t.Errorf("flat directory: %d entries, %v", len(flat), err)
	}
	bad := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bad, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "x", ChainFile), []byte(`{"chain_id":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAll(bad); err == nil || !strings.Contains(err.Error(), ChainFile) {
		t.Errorf("a malformed chain.json read as %v, want an error naming the file", err)
	}
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// compare walks the original document and its rewrite together, recording in dropped the
// non-zero members (paths with array positions folded to []) the rewrite leaves out.
func compare(t *testing.T, file, path string, orig, out any, dropped map[string]bool) {
	t.Helper()
	switch o := orig.(type) {
	case map[string]any:
		w, ok := out.(map[string]any)
		if !ok {
			t.Errorf("%s: %s: object written as %v", file, path, out)
			return
		}
		for k, ov := range o {
			wv, ok := w[k]
			if !ok {
				if !isZero(ov) {
					dropped[path+"."+k] = true
				}
				continue
			}
			compare(t, file, path+"."+k, ov, wv, dropped)
		}
		for k, wv := range w {
			if _, ok := o[k]; !ok && !isZero(wv) {
				t.Errorf("%s: %s.%s written as %v, absent from the file", file, path, k, wv)
			}
		}
	case []any:
		w, ok := out.([]any)
		if !ok || len(w) != len(o) {
			t.Errorf("%s: %s: array of %d written as %v", file, path, len(o), out)
			return
		}
		for i := range o {
			compare(t, file, path+"[]", o[i], w[i], dropped)
		}
	default:
		if !reflect.DeepEqual(orig, out) {
			t.Errorf("%s: %s: %v written as %v", file, path, orig, out)
		}
	}
}

func isZero(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case json.Number:
		return x == "0"
	case []any:
		return len(x) == 0
	case map[string]any:
		for _, e := range x {
			if !isZero(e) {
				return false
			}
		}
		return true
	}
	return false
}
