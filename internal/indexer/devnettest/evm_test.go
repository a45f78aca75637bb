package devnettest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rollgate/rollgate/internal/chain/evmrpc"
	"github.com/rollgate/rollgate/internal/chain/httpx"
	"github.com/rollgate/rollgate/internal/chain/vmkind"
	"github.com/rollgate/rollgate/internal/devnet"
	"github.com/rollgate/rollgate/internal/indexer/ingest"
	"github.com/rollgate/rollgate/internal/store"
)

// withEVM gives the EVM rollup's source its JSON-RPC side, as `rollgate indexer` does, and
// returns the internal-tx follower to run beside the pipeline (nil on other rollups, or when
// w is not a full store).
func withEVM(ep devnet.ChainEndpoints, r rollup, src *ingest.ClientSource, w store.Writer, stop int64, opts []httpx.Option) (*ingest.InternalFollower, error) {
	if r.vm() != vmkind.EVM {
		return nil, nil
	}
	rpc, err := evmrpc.New(ep.JSONRPC, opts...)
	if err != nil {
		return nil, err
	}
	es := ingest.NewEVMSource(rpc)
	src.WithEVM(es)
	st, ok := w.(ingest.InternalStore)
	if !ok {
		return nil, nil
	}
	return ingest.NewInternalFollower(ingest.InternalConfig{StopAtHeight: stop, PollInterval: 10 * time.Millisecond,
		RetryMin: 5 * time.Millisecond, RetryMax: 100 * time.Millisecond}, es, st, nil), nil
}

// evmCases are the golden requests of the EVM routes: on the EVM rollup every route, paged to
// the end both ways, with unknown and malformed inputs; elsewhere the 404 of every EVM path.
func evmCases(t testing.TB, kind string, h http.Handler) []gcase {
	const (
		etx = "/indexer/tx/v1/evm-txs"
		itx = "/indexer/tx/v1/evm-internal-txs"
	)
	const rl = "/indexer/richlist/v1/"
	if vmkind.Kind(kind) != vmkind.EVM {
		cs := []gcase{
			{"ERR_evm_txs_not_served", etx, ""},
			{"ERR_evm_txs_by_hash_not_served", etx + "/0x" + strings.Repeat("ab", 32), ""},
			{"ERR_evm_internal_txs_not_served", itx + "/by_height/2", ""},
		}
		if vmkind.Kind(kind) == vmkind.Wasm || vmkind.Kind(kind) == vmkind.Move {
			// The fee token (bank denom umin) and the other genesis denom, holders in bech32.
			cs = append(cs,
				gcase{"richlist_umin", rl + "umin?pagination.limit=3", ""},
				gcase{"richlist_umin_page2", rl + "umin?pagination.limit=3", "richlist_umin"},
				gcase{"richlist_umin_upper_all", rl + "UMIN?pagination.limit=1000&pagination.reverse=false", ""},
				gcase{"richlist_uusdc", rl + "uusdc", ""},
				gcase{"richlist_unknown_denom", rl + "nosuchdenom", ""},
				gcase{"ERR_richlist_malformed_denom", rl + "bad%20denom", ""},
			)
		}
		return cs
	}
	// Parameters by fixed rules: the first EVM tx, its sender and height, and the first
	// traced tx with internal txs.
	var first struct {
		Txs []struct {
			From            string `json:"from"`
			To              string `json:"to"`
			BlockNumber     string `json:"blockNumber"`
			TransactionHash string `json:"transactionHash"`
		} `json:"txs"`
	}
	getJSON(t, h, etx+"?pagination.limit=1&pagination.reverse=false", &first)
	var internal struct {
		Internal []struct {
			Hash   string `json:"hash"`
			Height int64  `json:"height"`
			From   string `json:"from"`
		} `json:"internal_txs"`
	}
	getJSON(t, h, itx+"?pagination.limit=1&pagination.reverse=false", &internal)
	if len(first.Txs) == 0 || len(internal.Internal) == 0 {
		t.Fatalf("the devnet's EVM rollup has %d EVM txs and %d internal txs: nothing to golden", len(first.Txs), len(internal.Internal))
	}
	f, in := first.Txs[0], internal.Internal[0]
	var height int64
	if _, err := fmt.Sscanf(f.BlockNumber, "0x%x", &height); err != nil {
		t.Fatalf("blockNumber %q: %v", f.BlockNumber, err)
	}
	from := "/by_account/" + f.From
	// The rich list of the fee token, by its bank denom in any case and by its ERC-20; uusdc
	// is the devnet EVM rollup's other genesis denom.
	var gas struct {
		Holders []struct{ Account string } `json:"holders"`
	}
	getJSON(t, h, rl+"GAS?pagination.limit=1", &gas)
	if len(gas.Holders) == 0 {
		t.Fatal("no GAS holders")
	}
	return []gcase{
		{"richlist_gas", rl + "GAS?pagination.limit=3", ""},
		{"richlist_gas_page2", rl + "GAS?pagination.limit=3", "richlist_gas"},
		{"richlist_gas_lowercase_all", rl + "gas?pagination.limit=1000", ""},
		{"richlist_gas_reverse_false", rl + "GAS?pagination.limit=3&pagination.reverse=false", ""},
		{"richlist_gas_offset_past_end", rl + "GAS?pagination.offset=1000", ""},
		{"richlist_gas_count_total_false", rl + "GAS?pagination.limit=2&pagination.count_total=false", ""},
		{"richlist_uusdc", rl + "uusdc", ""},
		{"richlist_unknown_denom", rl + "nosuchdenom", ""},
		{"richlist_unknown_erc20", rl + "0x" + strings.Repeat("12", 20), ""},
		{"richlist_unknown_evm_denom", rl + "evm%2F" + strings.Repeat("AB", 20), ""},
		{"ERR_richlist_unescaped_slash", rl + "evm/" + strings.Repeat("AB", 20), ""},
		{"ERR_richlist_malformed_denom", rl + "bad%20denom", ""},
		{"ERR_richlist_bad_key", rl + "GAS?pagination.key=%%%", ""},

		{"evm_txs_limit2", etx + "?pagination.limit=2", ""},
		{"evm_txs_limit2_page2", etx + "?pagination.limit=2", "evm_txs_limit2"},
		{"evm_txs_limit2_reverse_false", etx + "?pagination.limit=2&pagination.reverse=false", ""},
		{"evm_txs_limit2_reverse_false_page2", etx + "?pagination.limit=2&pagination.reverse=false", "evm_txs_limit2_reverse_false"},
		{"evm_txs_all", etx + "?pagination.limit=1000&pagination.reverse=false", ""},
		{"evm_txs_all_past_end", etx + "?pagination.limit=1000&pagination.reverse=false", "evm_txs_all"},
		{"evm_txs_offset_key", etx + "?pagination.limit=2&pagination.key=" + b64("3"), ""},
		{"evm_txs_height_key", fmt.Sprintf("%s?pagination.limit=2&pagination.key=%s", etx, b64(fmt.Sprintf(`{"height":%d}`, height))), ""},
		{"evm_txs_count_total_false", etx + "?pagination.limit=1&pagination.count_total=false", ""},
		{"evm_txs_by_account_from", etx + from + "?pagination.limit=2", ""},
		{"evm_txs_by_account_from_page2", etx + from + "?pagination.limit=2", "evm_txs_by_account_from"},
		{"evm_txs_by_account_from_offset1", etx + from + "?pagination.limit=2&pagination.offset=1", ""},
		{"evm_txs_by_account_from_is_signer", etx + from + "?is_signer=true&pagination.limit=2", ""},
		{"evm_txs_by_account_to_is_signer", etx + "/by_account/" + f.To + "?is_signer=true", ""},
		{"evm_txs_by_account_unknown", etx + "/by_account/0x1234", ""},
		{"ERR_evm_txs_by_account_invalid", etx + "/by_account/notanaddress", ""},
		{"evm_txs_by_height_first", fmt.Sprintf("%s/by_height/%d", etx, height), ""},
		{"evm_txs_by_height_future", fmt.Sprintf("%s/by_height/%d", etx, tip+1000), ""},
		{"ERR_evm_txs_by_height_0", etx + "/by_height/0", ""},
		{"evm_tx_by_hash", etx + "/" + f.TransactionHash, ""},
		{"evm_tx_by_hash_upper_no0x", etx + "/" + strings.ToUpper(strings.TrimPrefix(f.TransactionHash, "0x")), ""},
		{"ERR_evm_tx_by_hash_not_found", etx + "/0x" + strings.Repeat("0", 64), ""},
		{"ERR_evm_tx_by_hash_not_hex", etx + "/zzzz", ""},
		{"evm_internal_txs_limit3", itx + "?pagination.limit=3", ""},
		{"evm_internal_txs_limit3_page2", itx + "?pagination.limit=3", "evm_internal_txs_limit3"},
		{"evm_internal_txs_all", itx + "?pagination.limit=1000&pagination.reverse=false", ""},
		{"evm_internal_txs_all_past_end", itx + "?pagination.limit=1000&pagination.reverse=false", "evm_internal_txs_all"},
		{"evm_internal_txs_offset", itx + "?pagination.limit=2&pagination.offset=2", ""},
		{"evm_internal_txs_by_height", fmt.Sprintf("%s/by_height/%d", itx, in.Height), ""},
		{"evm_internal_txs_by_hash", itx + "/" + in.Hash, ""},
		{"evm_internal_txs_by_hash_limit1_page2", itx + "/" + in.Hash + "?pagination.limit=1", "evm_internal_txs_by_hash"},
		{"evm_internal_txs_by_account", itx + "/by_account/" + in.From + "?pagination.limit=3", ""},
		{"evm_internal_txs_by_account_unknown", itx + "/by_account/0x1234", ""},
		{"ERR_evm_internal_txs_by_hash_not_found", itx + "/0x" + strings.Repeat("0", 64), ""},
		{"ERR_evm_internal_txs_by_hash_not_hex", itx + "/0xzz", ""},
		{"ERR_evm_internal_txs_by_account_invalid", itx + "/by_account/nope", ""},
	}
}
