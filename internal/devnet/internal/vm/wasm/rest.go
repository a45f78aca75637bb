package wasm

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/cosmos/btcutil/bech32"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
	"github.com/rollgate/rollgate/internal/jsonx"
)

// Routes implements sim.Module: the x/wasm and tokenfactory REST queries.
func (m *Module) Routes(mux *http.ServeMux, at sim.QueryAt) {
	mux.HandleFunc("GET /cosmwasm/wasm/v1/contract/{address}", func(w http.ResponseWriter, r *http.Request) {
		q, addr, rec, ok := contractAt(w, r, at)
		if !ok {
			return
		}
		gateway.WriteJSON(w, contractInfoBody(q, addr, rec))
	})
	mux.HandleFunc("GET /cosmwasm/wasm/v1/contract/{address}/smart/{query_data...}", func(w http.ResponseWriter, r *http.Request) {
		data, err := decodeQueryData(r.PathValue("query_data"))
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, fmt.Sprintf("type mismatch, parameter: query_data, error: %v", err))
			return
		}
		if !json.Valid(data) {
			gateway.WriteError(w, http.StatusBadRequest, 3, "invalid query data")
			return
		}
		q, addr, rec, ok := contractAt(w, r, at)
		if !ok {
			return
		}
		if rec.Kind != kindCW721 {
			gateway.WriteError(w, http.StatusInternalServerError, 2, "codespace wasm code 29: wasmvm error: Error calling the VM: Error resolving Wasm function: Could not get export: Missing export query")
			return
		}
		var col collectionRec
		kvs := q.Store(StoreName)
		getJSON(kvs, keyCollection(addr), &col)
		res, err := smartQuery(kvs, addr, col, data, q.Height())
		if err != nil {
			gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
			return
		}
		gateway.WriteJSON(w, map[string]any{"data": res})
	})
	mux.HandleFunc("GET /cosmwasm/wasm/v1/contract/{address}/history", func(w http.ResponseWriter, r *http.Request) {
		_, _, rec, ok := contractAt(w, r, at)
		if !ok {
			return
		}
		entry := orderedValue([]kv{
			{"operation", "CONTRACT_CODE_HISTORY_OPERATION_TYPE_INIT"},
			{"code_id", strconv.FormatUint(rec.CodeID, 10)},
			{"updated", created(rec)},
			{"msg", rec.InitMsg},
		})
		writeOrdered(w, []kv{{"entries", []any{entry}}, {"pagination", emptyPage}})
	})
	mux.HandleFunc("GET /cosmwasm/wasm/v1/code", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteStateError(w, err)
			return
		}
		infos := []any{}
		q.Store(StoreName).Iterate("code/", func(k string, b []byte) bool {
			var c codeRec
			if json.Unmarshal(b, &c) == nil {
				id, _ := strconv.ParseUint(strings.TrimPrefix(k, "code/"), 10, 64)
				infos = append(infos, orderedValue([]kv{
					{"code_id", strconv.FormatUint(id, 10)}, {"creator", c.Creator},
					{"data_hash", strings.ToUpper(c.Checksum)},
					{"instantiate_permission", orderedValue([]kv{{"permission", "Everybody"}, {"addresses", []string{}}})},
				}))
			}
			return true
		})
		writeOrdered(w, []kv{{"code_infos", infos}, {"pagination", emptyPage}})
	})
	mux.HandleFunc("GET /cosmwasm/wasm/v1/code/{code_id}/contracts", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseUint(r.PathValue("code_id"), 10, 64)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, "type mismatch, parameter: code_id")
			return
		}
		m.listContracts(w, r, at, "contracts", func(rec contractRec) bool { return rec.CodeID == id })
	})
	mux.HandleFunc("GET /cosmwasm/wasm/v1/contracts/creator/{creator}", func(w http.ResponseWriter, r *http.Request) {
		creator := r.PathValue("creator")
		m.listContracts(w, r, at, "contract_addresses", func(rec contractRec) bool { return rec.Creator == creator })
	})
	mux.HandleFunc("GET /cosmwasm/wasm/v1/codes/params", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"params":{"code_upload_access":{"permission":"Everybody","addresses":[]},"instantiate_default_permission":"Everybody","max_wasm_size":"%d"}}`, MaxWasmSize)
	})
	mux.HandleFunc("GET /miniwasm/tokenfactory/v1/params", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"params":{"denom_creation_fee":[],"denom_creation_gas_consume":"%d"}}`, DenomCreationGas)
	})
	mux.HandleFunc("GET /miniwasm/tokenfactory/v1/denoms_from_creator/{creator}", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteStateError(w, err)
			return
		}
		prefix := keyDenom("factory/" + r.PathValue("creator") + "/")
		denoms := []string{}
		q.Store(StoreName).Iterate(prefix, func(k string, _ []byte) bool {
			denoms = append(denoms, strings.TrimPrefix(k, "denom/"))
			return true
		})
		gateway.WriteJSON(w, map[string][]string{"denoms": denoms})
	})
	// The gateway cannot route a denom with slashes (raw or %2F-encoded): 501 on the real chain.
	mux.HandleFunc("GET /miniwasm/tokenfactory/v1/denoms/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		gateway.WriteError(w, http.StatusNotImplemented, 12, "Not Implemented")
	})
}

var emptyPage = orderedValue([]kv{{"next_key", nil}, {"total", "0"}})

func (m *Module) listContracts(w http.ResponseWriter, r *http.Request, at sim.QueryAt, field string, keep func(contractRec) bool) {
	q, err := at(r)
	if err != nil {
		gateway.WriteStateError(w, err)
		return
	}
	type item struct {
		addr    string
		created int64
		seq     uint32
	}
	var items []item
	q.Store(StoreName).Iterate("contract/", func(k string, b []byte) bool {
		var rec contractRec
		if json.Unmarshal(b, &rec) == nil && keep(rec) {
			raw, _ := hex.DecodeString(strings.TrimPrefix(k, "contract/"))
			items = append(items, item{bech(q, raw), rec.Height, rec.TxIndex})
		}
		return true
	})
	// wasmd lists by creation (height, tx index), not by address.
	sort.SliceStable(items, func(i, j int) bool {
		if items[i].created != items[j].created {
			return items[i].created < items[j].created
		}
		return items[i].seq < items[j].seq
	})
	addrs := []string{}
	for _, it := range items {
		addrs = append(addrs, it.addr)
	}
	writeOrdered(w, []kv{{field, addrs}, {"pagination", emptyPage}})
}

func contractInfoBody(q sim.Query, addr []byte, rec contractRec) any {
	return orderedValue([]kv{
		{"address", bech(q, addr)},
		{"contract_info", orderedValue([]kv{
			{"code_id", strconv.FormatUint(rec.CodeID, 10)}, {"creator", rec.Creator}, {"admin", rec.Admin},
			{"label", rec.Label},
			{"created", created(rec)},
			{"ibc_port_id", ""}, {"extension", nil},
		})},
	})
}

// created is the AbsoluteTxPosition of a contract's instantiation.
func created(rec contractRec) orderedObj {
	return orderedValue([]kv{{"block_height", strconv.FormatInt(rec.Height, 10)}, {"tx_index", strconv.FormatUint(uint64(rec.TxIndex), 10)}})
}

// contractAt resolves the contract of the path at the requested height, writing the chain's
// error when there is none.
func contractAt(w http.ResponseWriter, r *http.Request, at sim.QueryAt) (sim.Query, []byte, contractRec, bool) {
	var rec contractRec
	s := r.PathValue("address")
	if _, _, err := bech32.Decode(s, address.MaxBech32Length); err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, "decoding bech32 failed: "+err.Error())
		return nil, nil, rec, false
	}
	q, err := at(r)
	if err != nil {
		gateway.WriteStateError(w, err)
		return nil, nil, rec, false
	}
	addr, err := address.FromBech32(q.AddressPrefix(), s)
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, err.Error())
		return nil, nil, rec, false
	}
	if !getJSON(q.Store(StoreName), keyContract(addr), &rec) {
		gateway.WriteError(w, http.StatusInternalServerError, 2, "codespace wasm code 22: no such contract: address "+s)
		return nil, nil, rec, false
	}
	return q, addr, rec, true
}

func decodeQueryData(s string) ([]byte, error) {
	var firstErr error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err == nil {
			return b, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// kv is one member of a JSON object whose key order matters (gateway answers are protobuf
// field order).
type kv struct {
	k string
	v any
}

type orderedObj []kv

func orderedValue(fields []kv) orderedObj { return orderedObj(fields) }

// MarshalJSON writes the members in order.
func (o orderedObj) MarshalJSON() ([]byte, error) {
	return jsonx.MarshalUnescaped(len(o), func(i int) (string, any) { return o[i].k, o[i].v })
}

// JSONObject lets jsonx write a nested o in place (the same bytes as MarshalJSON).
func (o orderedObj) JSONObject() (int, func(i int) (string, any), bool) {
	return len(o), func(i int) (string, any) { return o[i].k, o[i].v }, false
}

func marshalNoEscape(v any) []byte {
	b, err := gateway.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

func writeOrdered(w http.ResponseWriter, fields []kv) { gateway.WriteJSON(w, orderedValue(fields)) }
