package evm

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Routes implements sim.Module: the minievm REST queries an indexer makes.
func (m *Module) Routes(mux *http.ServeMux, at sim.QueryAt) {
	mux.HandleFunc("POST /minievm/evm/v1/call", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		var req struct {
			Sender       string `json:"sender"`
			ContractAddr string `json:"contract_addr"`
			Input        string `json:"input"`
			Value        string `json:"value"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err := json.Unmarshal(body, &req); err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		to, err := parseAddr(q.AddressPrefix(), req.ContractAddr)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		input, err := hex.DecodeString(strings.TrimPrefix(req.Input, "0x"))
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, "invalid input")
			return
		}
		ret, err := m.Call(q, to, input)
		type callResp struct {
			Response    string `json:"response"`
			UsedGas     string `json:"used_gas"`
			Logs        []any  `json:"logs"`
			TraceOutput string `json:"trace_output"`
			Error       string `json:"error"`
		}
		resp := callResp{Response: hexutilEncode(ret), UsedGas: strconv.Itoa(21000 + 64*len(input) + 32*len(ret)), Logs: []any{}}
		if errors.Is(err, ErrExecutionReverted) {
			resp.Response, resp.Error = "", ErrExecutionReverted.Error()
		}
		gateway.WriteJSON(w, resp)
	})
	mux.HandleFunc("GET /minievm/evm/v1/contracts/by_denom", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		d := r.URL.Query().Get("denom")
		if a, ok := m.ContractByDenom(q, d); ok {
			gateway.WriteJSON(w, map[string]string{"address": a.Hex()})
			return
		}
		gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found: key '"+d+"' of type string")
	})
	mux.HandleFunc("GET /minievm/evm/v1/denoms/{contract_addr}", func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		a, err := parseAddr(q.AddressPrefix(), r.PathValue("contract_addr"))
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		c, ok := getContract(q.Store(StoreName), a)
		if !ok || c.Denom == "" {
			gateway.WriteError(w, http.StatusNotFound, 5, "collections: not found")
			return
		}
		gateway.WriteJSON(w, map[string]string{"denom": c.Denom})
	})
	mux.HandleFunc("GET /minievm/evm/v1/contracts/erc20_factory", func(w http.ResponseWriter, r *http.Request) {
		gateway.WriteJSON(w, map[string]string{"address": m.factory.Hex()})
	})
	mux.HandleFunc("GET /minievm/evm/v1/contracts/erc20_wrapper", func(w http.ResponseWriter, r *http.Request) {
		gateway.WriteJSON(w, map[string]string{"address": WrapperAddress.Hex()})
	})
	mux.HandleFunc("GET /minievm/evm/v1/params", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"params":{"extra_eips":[],"allowed_publishers":[],"allow_custom_erc20":true,"allowed_custom_erc20s":[],"fee_denom":%q,"gas_refund_ratio":"0.500000000000000000","num_retain_block_hashes":"256","gas_enforcement":null}}`, m.cfg.FeeDenom)
	})
}

// ContractByDenom resolves the ERC-20 of a bank denom: registered contracts, or any denom
// that has a supply (the chain creates its ERC-20 on first mint).
func (m *Module) ContractByDenom(q sim.Query, denom string) (common.Address, bool) {
	if b, ok := q.Store(StoreName).Get("d/" + denom); ok {
		return common.HexToAddress(string(b)), true
	}
	if strings.HasPrefix(denom, "0x") && common.IsHexAddress(denom) {
		return common.HexToAddress(denom), true
	}
	if supplyOf(q, denom).Sign() > 0 {
		return DenomContract(denom), true
	}
	return common.Address{}, false
}

// Flavor is the minievm bank: every coin movement is an ERC-20 call with a Transfer log
// before the standard x/bank events, exactly as the fixture's bank sends show.
type Flavor struct{}

var _ sim.BankFlavor = Flavor{}

func (Flavor) erc20Events(from, to common.Address, coins []sim.Coin) []sim.Event {
	var out []sim.Event
	for _, c := range sortedCoins(coins) {
		addr := DenomContract(c.Denom)
		l := ethLog{Address: addr, Topics: []common.Hash{topicTransfer, addrTopic(from), addrTopic(to)}, Data: word(c.Amount).Bytes()}
		out = append(out,
			sim.Event{Type: "call", Attributes: []sim.Attribute{attr("contract", addr.Hex()), attr("ret", "0x")}},
			evmEvent([]ethLog{l}))
	}
	return out
}

func sortedCoins(coins []sim.Coin) []sim.Coin {
	cs := append([]sim.Coin(nil), coins...)
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].Denom < cs[j-1].Denom; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	return cs
}

// SendEvents implements sim.BankFlavor.
func (f Flavor) SendEvents(prefix string, from, to []byte, coins []sim.Coin) []sim.Event {
	evs := f.erc20Events(common.BytesToAddress(from), common.BytesToAddress(to), coins)
	return append(evs, engine.PlainBank{}.SendEvents(prefix, from, to, coins)...)
}

// MintEvents implements sim.BankFlavor.
func (f Flavor) MintEvents(prefix string, to []byte, coins []sim.Coin) []sim.Event {
	evs := f.erc20Events(common.Address{}, common.BytesToAddress(to), coins)
	return append(evs, engine.PlainBank{}.MintEvents(prefix, to, coins)...)
}

// BurnEvents implements sim.BankFlavor.
func (f Flavor) BurnEvents(prefix string, from []byte, coins []sim.Coin) []sim.Event {
	evs := f.erc20Events(common.BytesToAddress(from), common.Address{}, coins)
	return append(evs, engine.PlainBank{}.BurnEvents(prefix, from, coins)...)
}
