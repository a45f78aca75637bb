package devnet

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/rollgate/rollgate/internal/testutil"
	"github.com/rollgate/rollgate/internal/testutil/jsonshape"
)

// shapeBlocks is how long the shape test runs the network: enough for every operation of
// the Move and Wasm traffic mixes to show up.
const shapeBlocks = 120

// bridgeEventTypes mark a tx as cross-chain. The captures had no cross-chain traffic, so
// these txs (their messages and every event they emit) are exempt from the comparison
// with the captures; TestEndToEnd checks them against the ibc-go/OPinit reference instead.
var bridgeEventTypes = map[string]bool{
	"send_packet": true, "recv_packet": true, "write_acknowledgement": true, "acknowledge_packet": true,
	"timeout_packet": true, "ibc_transfer": true, "fungible_token_packet": true, "update_client": true,
	"initiate_token_deposit": true, "finalize_token_deposit": true, "initiate_token_withdrawal": true,
	"finalize_token_withdrawal": true, "denomination_trace": true, "timeout": true,
}

// exemptPath skips, in tx documents, the messages of the bridge stack (see
// bridgeEventTypes). The client's JSON inside Wasm `msg` fields is compared like the rest:
// the devnet's client sends the variants the captured one did, keys in the same order.
func exemptPath(p string) bool {
	return strings.Contains(p, "</ibc.") || strings.Contains(p, "</opinit.")
}

// rollupServer is one rollup as seen over HTTP.
type rollupServer struct {
	t         *testing.T
	rpc, rest string
}

func (s rollupServer) get(u string, height int64) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	if height > 0 {
		req.Header.Set("x-cosmos-block-height", fmt.Sprint(height))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		k, err := resp.Body.Read(buf)
		b = append(b, buf[:k]...)
		if err != nil {
			break
		}
	}
	return resp.StatusCode, b
}

// ok fetches a REST path that must answer 200.
func (s rollupServer) ok(path string, height int64) []byte {
	s.t.Helper()
	st, b := s.get(s.rest+path, height)
	if st != http.StatusOK {
		s.t.Fatalf("GET %s: %d %.300s", path, st, b)
	}
	return b
}

// blockDocs are what the devnet served for every height: /block, /block_results, REST txs
// by block, and REST tx by hash for each tx; plus the events of every tx.
type blockDocs struct {
	blocks, results, txsByBlock, txByHash [][]byte
	// events of each non-bridge tx, and how many txs were exempt as bridge txs
	events        [][]map[string]any
	bridgeTxs     int
	bridgeTxHashs map[string]bool
}

func fetchBlocks(t *testing.T, s rollupServer, top int64) blockDocs {
	t.Helper()
	d := blockDocs{bridgeTxHashs: map[string]bool{}}
	for h := int64(1); h <= top; h++ {
		_, blk := s.get(fmt.Sprintf("%s/block?height=%d", s.rpc, h), 0)
		_, res := s.get(fmt.Sprintf("%s/block_results?height=%d", s.rpc, h), 0)
		d.blocks, d.results = append(d.blocks, blk), append(d.results, res)
		d.txsByBlock = append(d.txsByBlock, s.ok(fmt.Sprintf("/cosmos/tx/v1beta1/txs/block/%d?pagination.limit=100", h), 0))
		var b struct {
			Result struct {
				Block struct {
					Data struct {
						Txs []string `json:"txs"`
					} `json:"data"`
				} `json:"block"`
			} `json:"result"`
		}
		if err := json.Unmarshal(blk, &b); err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		evs := jsonshape.TxEvents(t, res)
		if len(evs) != len(b.Result.Block.Data.Txs) {
			t.Fatalf("height %d: %d txs, %d results", h, len(b.Result.Block.Data.Txs), len(evs))
		}
		for i, tx := range b.Result.Block.Data.Txs {
			raw, err := base64.StdEncoding.DecodeString(tx)
			if err != nil {
				t.Fatal(err)
			}
			hash := fmt.Sprintf("%X", sha256.Sum256(raw))
			bridge := false
			for _, ev := range evs[i] {
				typ, _ := ev["type"].(string)
				bridge = bridge || bridgeEventTypes[typ]
			}
			if bridge {
				d.bridgeTxs++
				d.bridgeTxHashs[hash] = true
			} else {
				d.events = append(d.events, evs[i])
			}
			d.txByHash = append(d.txByHash, s.ok("/cosmos/tx/v1beta1/txs/"+hash, 0))
		}
	}
	return d
}

// compareBlocks compares the block-level responses and the events with a capture.
// exemptTypes are event types (move ones as move<type tag>) the real chain emitted that
// the devnet may never emit, with the reason.
func compareBlocks(t *testing.T, fx string, d blockDocs, exemptTypes map[string]string) {
	t.Helper()
	for _, c := range []struct {
		name, pattern string
		docs          [][]byte
	}{
		{"/block", "comet/block/*.json", d.blocks},
		{"/block_results", "comet/block_results/*.json", d.results},
		{"txs by block", "rest/txs_block/*.json", d.txsByBlock},
		{"tx by hash", "rest/tx/*.json", d.txByHash},
	} {
		for _, p := range jsonshape.Diff(c.name, shapeOf(t, jsonshape.ReadGlob(t, fx, c.pattern)), shapeOf(t, c.docs), exemptPath) {
			t.Error(p)
		}
	}

	real := jsonshape.BlockResultVariants(t, jsonshape.ReadGlob(t, fx, "comet/block_results/*.json"), jsonshape.EventOptions{})
	mine := jsonshape.Variants{}
	for _, evs := range d.events {
		for _, ev := range evs {
			mine.Add(ev, jsonshape.EventOptions{})
		}
	}
	types := jsonshape.Sorted(real)
	t.Logf("event types of the real chain: %s", strings.Join(types, " "))
	t.Logf("%d non-bridge and %d bridge txs compared", len(d.events), d.bridgeTxs)
	for _, typ := range types {
		if mine[typ] == nil {
			if why, ok := exemptTypes[typ]; ok {
				t.Logf("exempt: %s never emitted (%s)", typ, why)
				continue
			}
			t.Errorf("event %s (real chain) never emitted by the devnet in %d blocks", typ, shapeBlocks)
		}
	}
	for _, typ := range jsonshape.Sorted(mine) {
		if real[typ] == nil {
			continue // a type the capture never showed: nothing to compare with
		}
		for keys := range mine[typ] {
			if !real[typ][keys] {
				t.Errorf("event %s has attribute keys [%s], the real chain %v", typ, keys, jsonshape.Sorted(real[typ]))
			}
		}
	}
}

// moveEventAttrs collects an attribute of every `move` event with a type tag.
func moveEventAttrs(t *testing.T, results [][]byte, tag, key string) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	for _, doc := range results {
		for _, evs := range jsonshape.TxEvents(t, doc) {
			for _, ev := range evs {
				typ, _ := jsonshape.EventKey(ev, jsonshape.EventOptions{})
				if typ != "move<"+tag+">" {
					continue
				}
				if v := attrValue(ev, key); v != "" && !seen[v] {
					seen[v] = true
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func attrValue(ev map[string]any, key string) string {
	attrs, _ := ev["attributes"].([]any)
	for _, a := range attrs {
		am, _ := a.(map[string]any)
		if am["key"] == key {
			v, _ := am["value"].(string)
			return v
		}
	}
	return ""
}

// eventsWhere lists the events of a type (all txs, bridge ones too) with an attribute value.
func eventsWhere(t *testing.T, results [][]byte, typ, key, value string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, doc := range results {
		for _, evs := range jsonshape.TxEvents(t, doc) {
			for _, ev := range evs {
				if ev["type"] == typ && (key == "" || attrValue(ev, key) == value) {
					out = append(out, ev)
				}
			}
		}
	}
	return out
}

// compareQueries compares groups of devnet query responses with fixture files.
func compareQueries(t *testing.T, fx string, groups []queryGroup) {
	t.Helper()
	for _, g := range groups {
		if len(g.docs) == 0 && g.optional {
			continue
		}
		if len(g.docs) == 0 {
			t.Errorf("%s: the devnet gave nothing to compare", g.name)
			continue
		}
		var real [][]byte
		for _, p := range g.patterns {
			real = append(real, jsonshape.ReadGlob(t, fx, p)...)
		}
		for _, p := range jsonshape.Diff(g.name, shapeOf(t, real), shapeOf(t, g.docs), g.skip) {
			t.Error(p)
		}
	}
}

type queryGroup struct {
	name     string
	patterns []string
	docs     [][]byte
	optional bool // a known gap may leave it empty
	skip     func(path string) bool
}

// TestShapesMatchRealRollups runs the full localnet (bridge traffic on) and compares what
// its Move and Wasm rollups serve with the captured real minimove and miniwasm nodes.
func TestShapesMatchRealRollups(t *testing.T) {
	moveFx, wasmFx := testutil.Fixture(t, "minimove"), testutil.Fixture(t, "miniwasm")
	n := startManual(t, 1, func(c *Config) { c.Accounts, c.BridgeTraffic = 5, 0.3 })
	produce(t, n, shapeBlocks)
	top := int64(shapeBlocks + 1)

	t.Run("minimove", func(t *testing.T) {
		e := n.Endpoints()[moveID]
		s := rollupServer{t: t, rpc: e.RPC, rest: e.REST}
		d := fetchBlocks(t, s, top)
		compareBlocks(t, moveFx, d, map[string]string{})
		if d.bridgeTxs == 0 {
			t.Error("no bridge traffic reached the Move rollup")
		}

		res := func(addr, tag string) []byte {
			return s.ok("/initia/move/v1/accounts/"+addr+"/resources/by_struct_tag?struct_tag="+url.QueryEscape(tag), 0)
		}
		var metaDocs, denomDocs, faDocs, collDocs, collAll, nftDocs [][]byte
		denoms := []string{"umin", "uusdc"}
		for _, m := range moveEventAttrs(t, d.results, "0x1::coin::CoinCreatedEvent", "metadata_addr") {
			var v struct {
				Denom string `json:"denom"`
			}
			b := s.ok("/initia/move/v1/denom?metadata="+m, 0)
			denomDocs = append(denomDocs, b)
			if err := json.Unmarshal(b, &v); err != nil || v.Denom == "" {
				t.Fatalf("denom of %s: %s", m, b)
			}
			denoms = append(denoms, v.Denom)
		}
		for _, dn := range denoms {
			b := s.ok("/initia/move/v1/metadata?denom="+url.QueryEscape(dn), 0)
			metaDocs = append(metaDocs, b)
			var v struct {
				Metadata string `json:"metadata"`
			}
			if err := json.Unmarshal(b, &v); err != nil || v.Metadata == "" {
				t.Fatalf("metadata of %s: %s", dn, b)
			}
			denomDocs = append(denomDocs, s.ok("/initia/move/v1/denom?metadata="+v.Metadata, 0))
			faDocs = append(faDocs, res(v.Metadata, "0x1::fungible_asset::Metadata"))
		}
		for _, c := range moveEventAttrs(t, d.results, "0x1::collection::CreateCollectionEvent", "collection") {
			collDocs = append(collDocs, res(c, "0x1::collection::Collection"))
			collAll = append(collAll, s.ok("/initia/move/v1/accounts/"+c+"/resources", 0))
		}
		burned := map[string]bool{}
		for _, nft := range moveEventAttrs(t, d.results, "0x1::collection::BurnEvent", "nft") {
			burned[nft] = true
		}
		for _, nft := range moveEventAttrs(t, d.results, "0x1::collection::MintEvent", "nft") {
			if !burned[nft] {
				nftDocs = append(nftDocs, res(nft, "0x1::nft::Nft"))
			}
		}
		compareQueries(t, moveFx, []queryGroup{
			{"move params", []string{"rest/move/move_params.json"}, [][]byte{s.ok("/initia/move/v1/params", 0)}, false, nil},
			{"metadata by denom", []string{"rest/move/metadata_by_denom_*.json"}, metaDocs, false, nil},
			{"denom by metadata", []string{"rest/move/denom_by_metadata_*.json"}, denomDocs, false, nil},
			{"fungible asset metadata", []string{"rest/move/metadata_*_at_N.json", "rest/move/metadata_*_h0.json"}, faDocs, false, nil},
			{"collection", []string{"rest/move/collection_?_at_*.json"}, collDocs, false, nil},
			{"collection resources", []string{"rest/move/collection_*_resources_all_at_N.json"}, collAll, false, nil},
			{"nft", []string{"rest/move/nft_*.json"}, nftDocs, false, nil},
		})
	})

	t.Run("miniwasm", func(t *testing.T) {
		e := n.Endpoints()[wasmID]
		s := rollupServer{t: t, rpc: e.RPC, rest: e.REST}
		d := fetchBlocks(t, s, top)
		compareBlocks(t, wasmFx, d, map[string]string{})
		if d.bridgeTxs == 0 {
			t.Error("no bridge traffic reached the Wasm rollup")
		}

		smart := func(addr, q string) []byte {
			return s.ok("/cosmwasm/wasm/v1/contract/"+addr+"/smart/"+base64.StdEncoding.EncodeToString([]byte(q)), 0)
		}
		var codeContracts, creators, contracts, histories [][]byte
		seenCreator := map[string]bool{}
		for _, ev := range eventsWhere(t, d.results, "store_code", "", "") {
			codeContracts = append(codeContracts, s.ok("/cosmwasm/wasm/v1/code/"+attrValue(ev, "code_id")+"/contracts", 0))
		}
		for _, ev := range eventsWhere(t, d.results, "instantiate", "", "") {
			addr := attrValue(ev, "_contract_address")
			contracts = append(contracts, s.ok("/cosmwasm/wasm/v1/contract/"+addr, 0))
			histories = append(histories, s.ok("/cosmwasm/wasm/v1/contract/"+addr+"/history", 0))
			var ci struct {
				Info struct {
					Creator string `json:"creator"`
				} `json:"contract_info"`
			}
			_ = json.Unmarshal(contracts[len(contracts)-1], &ci)
			if ci.Info.Creator != "" && !seenCreator[ci.Info.Creator] {
				seenCreator[ci.Info.Creator] = true
				creators = append(creators, s.ok("/cosmwasm/wasm/v1/contracts/creator/"+ci.Info.Creator, 0))
			}
		}
		// CW721 collections and their live tokens, from the contracts' own wasm events
		tokens := map[string]map[string]string{} // contract → token id → owner at mint
		var collections []string
		for _, ev := range eventsWhere(t, d.results, "wasm", "action", "mint") {
			c := attrValue(ev, "_contract_address")
			if tokens[c] == nil {
				tokens[c] = map[string]string{}
				collections = append(collections, c)
			}
			tokens[c][attrValue(ev, "token_id")] = attrValue(ev, "owner")
		}
		for _, ev := range eventsWhere(t, d.results, "wasm", "action", "burn") {
			delete(tokens[attrValue(ev, "_contract_address")], attrValue(ev, "token_id"))
		}
		per := map[string][][]byte{}
		for _, c := range collections {
			for _, q := range []string{"contract_info", "num_tokens", "all_tokens", "get_collection_info_and_extension", "get_minter_ownership", "minter"} {
				per[q] = append(per[q], smart(c, `{"`+q+`":{}}`))
			}
			var ids []string
			for id := range tokens[c] {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for _, id := range ids {
				for _, q := range []string{"nft_info", "owner_of", "all_nft_info"} {
					per[q] = append(per[q], smart(c, fmt.Sprintf(`{%q:{"token_id":%q}}`, q, id)))
				}
				per["tokens"] = append(per["tokens"], smart(c, fmt.Sprintf(`{"tokens":{"owner":%q}}`, tokens[c][id])))
			}
		}
		var factory, factorySupply, factoryMeta [][]byte
		for _, ev := range eventsWhere(t, d.results, "create_denom", "", "") {
			factory = append(factory, s.ok("/miniwasm/tokenfactory/v1/denoms_from_creator/"+attrValue(ev, "creator"), 0))
			dn := url.QueryEscape(attrValue(ev, "new_token_denom"))
			factorySupply = append(factorySupply, s.ok("/cosmos/bank/v1beta1/supply/by_denom?denom="+dn, 0))
			factoryMeta = append(factoryMeta, s.ok("/cosmos/bank/v1beta1/denoms_metadata_by_query_string?denom="+dn, 0))
		}
		if len(factory) == 0 {
			t.Error("no tokenfactory denom created")
		}
		compareQueries(t, wasmFx, []queryGroup{
			{"codes", []string{"rest/wasm/codes.json"}, [][]byte{s.ok("/cosmwasm/wasm/v1/code", 0)}, false, nil},
			{"wasm params", []string{"rest/wasm/wasm_params.json"}, [][]byte{s.ok("/cosmwasm/wasm/v1/codes/params", 0)}, false, nil},
			{"code contracts", []string{"rest/wasm/code_*_contracts.json"}, codeContracts, false, nil},
			{"contracts by creator", []string{"rest/wasm/contracts_by_creator_*.json"}, creators, false, nil},
			{"contract", []string{"rest/wasm/contract_?.json", "rest/wasm/contract_?_at_*.json", "rest/wasm/contract_STUB.json"}, contracts, false, nil},
			{"contract history", []string{"rest/wasm/contract_*_history.json"}, histories, false, nil},
			{"smart contract_info", []string{"rest/wasm/smart_?_contract_info*.json"}, per["contract_info"], false, nil},
			{"smart num_tokens", []string{"rest/wasm/smart_?_num_tokens*.json"}, per["num_tokens"], false, nil},
			{"smart all_tokens", []string{"rest/wasm/smart_?_all_tokens.json"}, per["all_tokens"], false, nil},
			{"smart collection info", []string{"rest/wasm/smart_?_get_collection_info_and_extension.json"}, per["get_collection_info_and_extension"], false, nil},
			{"smart minter ownership", []string{"rest/wasm/smart_?_get_minter_ownership.json"}, per["get_minter_ownership"], false, nil},
			{"smart minter", []string{"rest/wasm/smart_?_minter_deprecated.json"}, per["minter"], false, nil},
			{"smart nft_info", []string{"rest/wasm/smart_nft_info_*.json"}, per["nft_info"], false, nil},
			{"smart owner_of", []string{"rest/wasm/smart_owner_of_*.json"}, per["owner_of"], false, nil},
			{"smart all_nft_info", []string{"rest/wasm/smart_all_nft_info_*.json"}, per["all_nft_info"], false, nil},
			{"smart tokens", []string{"rest/wasm/smart_tokens_by_owner_*.json"}, per["tokens"], false, nil},
			{"tokenfactory params", []string{"rest/tokenfactory/params.json"}, [][]byte{s.ok("/miniwasm/tokenfactory/v1/params", 0)}, false, nil},
			{"denoms from creator", []string{"rest/tokenfactory/denoms_from_creator_*.json"}, factory, false, nil},
			{"factory denom supply", []string{"rest/tokenfactory/supply_of_factory_denom.json"}, factorySupply, false, nil},
			{"factory denom metadata", []string{"rest/tokenfactory/denom_metadata_factory_denom.json"}, factoryMeta, false, nil},
			{"denoms metadata", []string{"rest/misc/bank_denoms_metadata.json"}, [][]byte{s.ok("/cosmos/bank/v1beta1/denoms_metadata", 0)}, false, nil},
			{"bank supply", []string{"rest/misc/bank_supply.json"}, [][]byte{s.ok("/cosmos/bank/v1beta1/supply", 0)}, false, nil},
		})
	})
}
