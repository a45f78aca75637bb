package move

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Routes implements sim.Module: the x/move REST queries an indexer makes.
func (m *Module) Routes(mux *http.ServeMux, at sim.QueryAt) {
	m.routeViews(mux, at)
	mux.HandleFunc("GET /initia/move/v1/accounts/{address}/resources/by_struct_tag", func(w http.ResponseWriter, r *http.Request) {
		m.serveResource(w, r, at)
	})
	mux.HandleFunc("GET /initia/move/v1/accounts/{address}/resources", func(w http.ResponseWriter, r *http.Request) {
		m.serveResources(w, r, at)
	})
	mux.HandleFunc("GET /initia/move/v1/metadata", func(w http.ResponseWriter, r *http.Request) {
		d := r.URL.Query().Get("denom")
		if d == "" {
			gateway.WriteError(w, http.StatusBadRequest, 3, "empty denom")
			return
		}
		gateway.WriteJSON(w, map[string]string{"metadata": CoinMetadata(d).String()})
	})
	mux.HandleFunc("GET /initia/move/v1/denom", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteStateError(w, err)
			return
		}
		meta, err := ParseAddr(r.URL.Query().Get("metadata"))
		if err != nil {
			gateway.WriteError(w, http.StatusInternalServerError, 2, ErrBadAddress.Error())
			return
		}
		d, ok := m.denomOf(q.Store(StoreName), meta)
		if !ok {
			gateway.WriteError(w, http.StatusInternalServerError, 2, notFoundMessage(meta, "0x1::fungible_asset::Metadata"))
			return
		}
		gateway.WriteJSON(w, map[string]string{"denom": d})
	})
	mux.HandleFunc("GET /initia/move/v1/params", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"params":{"base_denom":%s,"base_min_gas_price":"0.000000000000000000","contract_shared_revenue_ratio":"0.000000000000000000","script_enabled":true,"allowed_publishers":[]}}`, quote(m.baseDenom))
	})
}

// resource is one entry of the resource answers.
type resource struct {
	Address      string `json:"address"`
	StructTag    string `json:"struct_tag"`
	MoveResource string `json:"move_resource"`
	RawBytes     string `json:"raw_bytes"`
}

func (m *Module) serveResource(w http.ResponseWriter, r *http.Request, at sim.QueryAt) {
	addr, err := ParseAddr(r.PathValue("address"))
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, ErrBadAddress.Error())
		return
	}
	q, err := at(r)
	if err != nil {
		gateway.WriteStateError(w, err)
		return
	}
	tag := r.URL.Query().Get("struct_tag")
	for _, res := range m.resources(q.Store(StoreName), addr) {
		if res.StructTag == tag {
			gateway.WriteJSON(w, map[string]resource{"resource": res})
			return
		}
	}
	gateway.WriteError(w, http.StatusInternalServerError, 2, notFoundMessage(addr, tag))
}

func (m *Module) serveResources(w http.ResponseWriter, r *http.Request, at sim.QueryAt) {
	addr, err := ParseAddr(r.PathValue("address"))
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 2, ErrBadAddress.Error())
		return
	}
	q, err := at(r)
	if err != nil {
		gateway.WriteStateError(w, err)
		return
	}
	list := m.resources(q.Store(StoreName), addr)
	if list == nil {
		list = []resource{}
	}
	body := struct {
		Resources  []resource `json:"resources"`
		Pagination struct {
			NextKey *string `json:"next_key"`
			Total   string  `json:"total"`
		} `json:"pagination"`
	}{Resources: list}
	body.Pagination.Total = strconv.Itoa(len(list))
	gateway.WriteJSON(w, body)
}

// resources lists the resources stored at addr in the chain's key order (the BCS struct tag,
// so shorter module names first).
func (m *Module) resources(kvs sim.KVReader, addr Addr) []resource {
	var out []resource
	add := func(tag string, data map[string]any, raw []byte) {
		out = append(out, resource{
			Address: addr.String(), StructTag: tag,
			MoveResource: `{"type":` + quote(tag) + `,"data":` + string(marshalNoEscape(data)) + `}`,
			RawBytes:     base64.StdEncoding.EncodeToString(raw),
		})
	}
	var obj objectRec
	hasObj := getJSON(kvs, keyObj(addr), &obj)
	if !hasObj {
		if d, ok := m.set.denomOf(addr); ok && !strings.HasPrefix(d, "move/") {
			// A coin denom seen only through the bank (e.g. an IBC voucher): its metadata object
			// exists on a real chain from its first mint.
			obj = objectRec{Owner: StdAddr.Hex(), Kind: kindMetadata}
		} else {
			return nil
		}
	}
	owner := hexAddr(obj.Owner)
	var w bcsWriter
	w.addr(owner)
	w.boolean(true)
	w.u64(obj.version())
	add("0x1::object::ObjectCore", map[string]any{"allow_ungated_transfer": true, "owner": owner.String(), "version": strconv.FormatUint(obj.version(), 10)}, w.b)

	switch obj.Kind {
	case kindCollection:
		var c collectionRec
		if !getJSON(kvs, keyCol(addr), &c) {
			break
		}
		creator := hexAddr(c.Creator)
		roy, _ := parseDecimal(c.Royalty)
		w = bcsWriter{}
		w.bytes(decimalBytes(roy))
		w.addr(creator)
		add("0x1::royalty::Royalty", map[string]any{"payee_address": creator.String(), "royalty": c.Royalty}, w.b)
		w = bcsWriter{}
		w.addr(creator)
		w.str(c.Description)
		w.str(c.Name)
		w.str(c.URI)
		handle := hexAddr(c.Handle)
		w.addr(handle)
		w.u64(c.Current)
		add("0x1::collection::Collection", map[string]any{
			"creator": creator.String(), "description": c.Description, "name": c.Name, "uri": c.URI,
			"nfts": map[string]any{"handle": handle.String(), "length": strconv.FormatUint(c.Current, 10)},
		}, w.b)
		w = bcsWriter{}
		if c.MaxSupply != nil {
			w.u64(c.Current)
			w.u64(*c.MaxSupply)
			w.u64(c.Minted)
			add("0x1::collection::FixedSupply", map[string]any{
				"current_supply": strconv.FormatUint(c.Current, 10), "max_supply": strconv.FormatUint(*c.MaxSupply, 10),
				"total_minted": strconv.FormatUint(c.Minted, 10)}, w.b)
		} else {
			w.u64(c.Current)
			w.u64(c.Minted)
			add("0x1::collection::UnlimitedSupply", map[string]any{
				"current_supply": strconv.FormatUint(c.Current, 10), "total_minted": strconv.FormatUint(c.Minted, 10)}, w.b)
		}
		w = bcsWriter{}
		data := map[string]any{
			"mutable_description": c.MutDesc, "mutable_nft_description": c.MutNftDesc,
			"mutable_nft_uri": c.MutNftURI, "mutable_uri": c.MutURI, "mutator_ref": nil, "royalty_mutator_ref": nil,
		}
		mutable := c.MutDesc || c.MutURI || c.MutNftDesc || c.MutNftURI
		if mutable {
			w.u8(1)
			w.addr(addr)
			data["mutator_ref"] = map[string]any{"self": addr.String()}
		} else {
			w.u8(0)
		}
		if c.MutRoyalty {
			w.u8(1)
			w.addr(addr)
			w.u64(1)
			data["royalty_mutator_ref"] = map[string]any{"inner": map[string]any{"self": addr.String(), "version": "1"}}
		} else {
			w.u8(0)
		}
		for _, b := range []bool{c.MutDesc, c.MutURI, c.MutNftDesc, c.MutNftURI} {
			w.boolean(b)
		}
		add("0x1::initia_nft::InitiaNftCollection", data, w.b)
		add("0x1::simple_nft::SimpleNftCollection", map[string]any{"mutable_nft_properties": c.MutNftProps}, bcsBool(c.MutNftProps))
	case kindNft:
		var n nftRec
		if !getJSON(kvs, keyNft(addr), &n) {
			break
		}
		col := hexAddr(n.Collection)
		w = bcsWriter{}
		w.addr(col)
		w.str(n.Description)
		w.str(n.TokenID)
		w.str(n.URI)
		add("0x1::nft::Nft", map[string]any{
			"collection": map[string]any{"inner": col.String()}, "description": n.Description,
			"token_id": n.TokenID, "uri": n.URI,
		}, w.b)
	case kindMetadata:
		var md metadataRec
		if !getJSON(kvs, keyMeta(addr), &md) {
			d, _ := m.set.denomOf(addr)
			md = metadataRec{Name: d + " Coin", Symbol: d}
		}
		w = bcsWriter{}
		w.str(md.Name)
		w.str(md.Symbol)
		w.u8(md.Decimals)
		w.str(md.IconURI)
		w.str(md.ProjectURI)
		add("0x1::fungible_asset::Metadata", map[string]any{
			"decimals": md.Decimals, "icon_uri": md.IconURI, "name": md.Name, "project_uri": md.ProjectURI, "symbol": md.Symbol,
		}, w.b)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return bytes.Compare(structTagKey(out[i].StructTag), structTagKey(out[j].StructTag)) < 0
	})
	return out
}

// structTagKey is the BCS form of a struct tag without type arguments (address, module,
// name, empty type-argument vector): the resource key suffix the chain stores and reports.
func structTagKey(tag string) []byte {
	parts := strings.Split(tag, "::")
	var w bcsWriter
	if len(parts) != 3 {
		w.str(tag)
		return w.b
	}
	a, err := ParseAddr(parts[0])
	if err != nil {
		w.str(tag)
		return w.b
	}
	w.addr(a)
	w.str(parts[1])
	w.str(parts[2])
	w.uleb(0)
	return w.b
}

// notFoundMessage is the collections-store error x/move returns for a missing resource:
// the key is the address, the resource separator 0x02 and the BCS struct tag.
func notFoundMessage(addr Addr, tag string) string {
	key := append(append(addr[:0:0], addr[:]...), 0x02)
	key = append(key, structTagKey(tag)...)
	return fmt.Sprintf("collections: not found: key 'hexBytes:%s' of type bytes", hex.EncodeToString(key))
}

func marshalNoEscape(v any) []byte {
	b, err := gateway.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

func quote(s string) string { return string(marshalNoEscape(s)) }
