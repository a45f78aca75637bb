package move

// Move view functions over x/move's REST (initia-labs/initia:proto/initia/move/v1/query.proto): the
// legacy POST /initia/move/v1/accounts/{address}/modules/{module_name}/view_functions/{fn}
// (what @initia/utils' createMoveClient.viewFunction calls for InterwovenKit, and initia.js
// MoveAPI.viewFunction), POST /initia/move/v1/view and /view/batch with BCS arguments, and
// /view/json and /view/json/batch with JSON ones (InterwovenKit's send-nft tx.move.ts).
//
// Nothing runs Move bytecode: the standard library's balance views
// (primary_fungible_store::balance, coin::balance) are answered from the simulated state, and any other function fails as the Move VM fails it —
// a module the chain does not have (the kit asks the L1 for usernames, lock_staking, clamm
// and vault modules that only Initia's public networks publish) with LINKER_ERROR, an
// unknown function of a module it has with FUNCTION_RESOLUTION_FAILURE — which the querier
// returns as a plain error: the gateway's HTTP 500 with gRPC code 2 (initia
// x/move/keeper/querier.go View; movevm libmovevm/src/error/rust.rs "VM error: {}").

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strconv"

	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// viewRequest is QueryViewRequest / QueryViewJSONRequest (the legacy route takes the first
// three from its path).
type viewRequest struct {
	Address      string   `json:"address"`
	ModuleName   string   `json:"module_name"`
	FunctionName string   `json:"function_name"`
	TypeArgs     []string `json:"type_args"`
	Args         []string `json:"args"`
}

// viewResponse is QueryViewResponse: data is the result as JSON text.
type viewResponse struct {
	Data    string `json:"data"`
	Events  []any  `json:"events"`
	GasUsed string `json:"gas_used"`
}

// viewError is a failed view: a VM status (answered as the gateway's 500/2), or a request
// the querier refuses before the VM runs (400/3).
type viewError struct {
	status int
	code   int
	msg    string
}

func viewVMError(status, format string, a ...any) *viewError {
	return &viewError{http.StatusInternalServerError, 2, fmt.Sprintf("VM error: status %s of type Verification with message %s", status, fmt.Sprintf(format, a...))}
}

// stdViews are the 0x1 modules the devnet answers views of.
var stdViews = map[string]map[string]bool{
	"primary_fungible_store": {"balance": true},
	"coin":                   {"balance": true},
	"fungible_asset":         {},
}

// viewGas is the gas a devnet view reports: a fixed cost per call and argument, as there is
// no bytecode to meter.
func viewGas(args int) string { return strconv.Itoa(1_000 + 100*args) }

func (m *Module) routeViews(mux *http.ServeMux, at sim.QueryAt) {
	one := func(json bool, path bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var req viewRequest
			if !decodeBody(w, r, &req) {
				return
			}
			if path {
				req.Address, req.ModuleName, req.FunctionName = r.PathValue("address"), r.PathValue("module_name"), r.PathValue("function_name")
			}
			q, err := at(r)
			if err != nil {
				gateway.WriteStateError(w, err)
				return
			}
			res, verr := m.view(q, req, json)
			if verr != nil {
				gateway.WriteError(w, verr.status, verr.code, verr.msg)
				return
			}
			gateway.WriteJSON(w, res)
		}
	}
	batch := func(json bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Requests []viewRequest `json:"requests"`
			}
			if !decodeBody(w, r, &req) {
				return
			}
			q, err := at(r)
			if err != nil {
				gateway.WriteStateError(w, err)
				return
			}
			out := make([]viewResponse, 0, len(req.Requests))
			for _, vr := range req.Requests {
				res, verr := m.view(q, vr, json)
				if verr != nil {
					gateway.WriteError(w, verr.status, verr.code, verr.msg)
					return
				}
				out = append(out, res)
			}
			gateway.WriteJSON(w, map[string][]viewResponse{"responses": out})
		}
	}
	mux.HandleFunc("POST /initia/move/v1/accounts/{address}/modules/{module_name}/view_functions/{function_name}", one(false, true))
	mux.HandleFunc("POST /initia/move/v1/view", one(false, false))
	mux.HandleFunc("POST /initia/move/v1/view/batch", batch(false))
	mux.HandleFunc("POST /initia/move/v1/view/json", one(true, false))
	mux.HandleFunc("POST /initia/move/v1/view/json/batch", batch(true))
}

func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(body, v)
	}
	if err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
		return false
	}
	return true
}

// view runs one view function against q; jsonArgs says how the arguments are encoded (JSON
// text, or base64 BCS).
func (m *Module) view(q sim.Query, req viewRequest, jsonArgs bool) (viewResponse, *viewError) {
	mod, err := ParseAddr(req.Address)
	if err != nil {
		return viewResponse{}, &viewError{http.StatusInternalServerError, 2, "decoding bech32 failed: invalid address " + req.Address}
	}
	if req.ModuleName == "" {
		return viewResponse{}, &viewError{http.StatusBadRequest, 3, "empty module name: invalid request"}
	}
	if req.FunctionName == "" {
		return viewResponse{}, &viewError{http.StatusBadRequest, 3, "empty function name: invalid request"}
	}
	if p, ok := m.packages[mod]; ok {
		if h, ok := p.(interface{ HasModule(string) bool }); ok && !h.HasModule(req.ModuleName) {
			return viewResponse{}, viewVMError("LINKER_ERROR", "Linker Error: Module %s::%s doesn't exist", mod.String(), req.ModuleName)
		}
		a, ok := viewArgsOf(viewArgs{raw: req.Args, json: jsonArgs})
		if !ok {
			return viewResponse{}, deserializeErr(0)
		}
		data, ok, err := p.View(q, req.ModuleName, req.FunctionName, a)
		if !ok {
			return viewResponse{}, viewVMError("FUNCTION_RESOLUTION_FAILURE", "Function %s::%s::%s does not exist", mod.String(), req.ModuleName, req.FunctionName)
		}
		if err != nil {
			return viewResponse{}, &viewError{http.StatusInternalServerError, 2, err.Error()}
		}
		return viewResponse{Data: data, Events: []any{}, GasUsed: viewGas(len(req.Args))}, nil
	}
	fns, known := stdViews[req.ModuleName]
	if mod != StdAddr || !known {
		return viewResponse{}, viewVMError("LINKER_ERROR", "Linker Error: Module %s::%s doesn't exist", mod.String(), req.ModuleName)
	}
	if !fns[req.FunctionName] {
		return viewResponse{}, viewVMError("FUNCTION_RESOLUTION_FAILURE", "Function %s::%s::%s does not exist", mod.String(), req.ModuleName, req.FunctionName)
	}
	args := viewArgs{raw: req.Args, json: jsonArgs}
	var data string
	var verr *viewError
	switch req.ModuleName + "::" + req.FunctionName {
	case "primary_fungible_store::balance", "coin::balance":
		// (account: address, metadata: Object<T>): u64 — the owner's primary store of the
		// coin, which is where the Move-backed bank keeps every balance.
		var owner, meta Addr
		if owner, verr = args.address(0, 2); verr == nil {
			if meta, verr = args.address(1, 2); verr == nil {
				bal := new(big.Int)
				if d, ok := m.denomOf(q.Store(StoreName), meta); ok {
					bal = q.Balance(bankAddr(owner), d)
				}
				data = strconv.Quote(bal.String()) // Move JSON prints u64 as a string
			}
		}
	}
	if verr != nil {
		return viewResponse{}, verr
	}
	return viewResponse{Data: data, Events: []any{}, GasUsed: viewGas(len(req.Args))}, nil
}

// bankAddr is the bank's key of a Move address: an account's 20 bytes, an object's 32.
func bankAddr(a Addr) []byte {
	for _, b := range a[:12] {
		if b != 0 {
			return a[:]
		}
	}
	return a.Account()
}

// viewArgs are a view's arguments, BCS (base64) or JSON text.
type viewArgs struct {
	raw  []string
	json bool
}

func (v viewArgs) count(want int) *viewError {
	if len(v.raw) != want {
		return viewVMError("NUMBER_OF_ARGUMENTS_MISMATCH", "expected %d arguments, got %d", want, len(v.raw))
	}
	return nil
}

func deserializeErr(i int) *viewError {
	return &viewError{http.StatusInternalServerError, 2, fmt.Sprintf("VM error: status FAILED_TO_DESERIALIZE_ARGUMENT of type Verification with message failed to deserialize argument %d", i)}
}

// address reads argument i of n as an address (or an Object, which is one).
func (v viewArgs) address(i, n int) (Addr, *viewError) {
	if err := v.count(n); err != nil {
		return Addr{}, err
	}
	if v.json {
		var s string
		if json.Unmarshal([]byte(v.raw[i]), &s) != nil {
			return Addr{}, deserializeErr(i)
		}
		a, err := ParseAddr(s)
		if err != nil {
			return Addr{}, deserializeErr(i)
		}
		return a, nil
	}
	b, err := base64.StdEncoding.DecodeString(v.raw[i])
	if err != nil || len(b) != 32 {
		return Addr{}, deserializeErr(i)
	}
	return Addr(b), nil
}
