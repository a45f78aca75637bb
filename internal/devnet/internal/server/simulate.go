package server

// Transaction simulation, as a wallet calls it before signing: the gRPC service
// cosmos.tx.v1beta1.Service/Simulate over CometBFT's abci_query (cosmjs'
// QueryClient.tx.simulate, which InterwovenKit uses: packages/interwovenkit-react/src/data/tx.ts
// simulateTx and estimateGas) and over the gateway (POST /cosmos/tx/v1beta1/simulate,
// initia.js' RESTClient tx.simulate).

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/rollgate/rollgate/internal/devnet/internal/engine"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
)

// simulateRequestTx is the tx of a SimulateRequest: tx_bytes (field 2) or the deprecated tx
// (field 1), whose Tx encoding is a TxRaw's byte for byte.
func simulateRequestTx(data []byte) []byte {
	var deprecated []byte
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil
		}
		data = data[n:]
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return nil
		}
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(data)
			switch num {
			case 2:
				return v
			case 1:
				deprecated = v
			}
		}
		data = data[m:]
	}
	return deprecated
}

// simulateResponse encodes cosmos.tx.v1beta1.SimulateResponse: gas_info {gas_wanted,
// gas_used} and result {data, log, events, msg_responses}.
func simulateResponse(r engine.TxResult) []byte {
	gas := pbVarint(pbVarint(nil, 1, engine.SimulateGasWanted), 2, uint64(r.GasUsed))
	var res []byte
	if len(r.Data) > 0 {
		res = pbBytes(res, 1, r.Data)
	}
	if r.Log != "" {
		res = pbBytes(res, 2, []byte(r.Log))
	}
	for _, e := range r.Events {
		ev := pbBytes(nil, 1, []byte(e.Type))
		for _, a := range e.Attributes {
			attr := pbBytes(pbBytes(nil, 1, []byte(a.Key)), 2, []byte(a.Value))
			if a.Index {
				attr = pbVarint(attr, 3, 1)
			}
			ev = pbBytes(ev, 2, attr)
		}
		res = pbBytes(res, 3, ev)
	}
	for _, a := range msgResponses(r.Data) {
		res = pbBytes(res, 4, a)
	}
	out := pbBytes(nil, 1, gas)
	return pbBytes(out, 2, res)
}

// msgResponses are the Any messages of a TxMsgData (its field 2).
func msgResponses(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return out
		}
		data = data[n:]
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return out
		}
		if num == 2 && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(data)
			out = append(out, v)
		}
		data = data[m:]
	}
	return out
}

// abciSimulate answers abci_query /cosmos.tx.v1beta1.Service/Simulate. A failed simulation
// is the gRPC error the tx service returns (codes.Unknown), which baseapp's query router
// turns into ErrUnknownRequest (code 6): the log cosmjs shows as
// "Query failed with (6): rpc error: code = Unknown desc = …".
func (s *Comet) abciSimulate(data []byte, resp func(code uint32, log string, value []byte, codespace string) any) any {
	raw := simulateRequestTx(data)
	if len(raw) == 0 {
		return resp(6, "rpc error: code = InvalidArgument desc = empty txBytes is not allowed: unknown request", nil, "sdk")
	}
	r := s.c.Simulate(raw)
	if r.Code != 0 {
		return resp(6, "rpc error: code = Unknown desc = "+engine.SimulateError(r)+": unknown request", nil, "sdk")
	}
	return resp(0, "", simulateResponse(r), "")
}

// simulate answers POST /cosmos/tx/v1beta1/simulate {"tx_bytes": base64}.
func (s *rest) simulate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		TxBytes string          `json:"tx_bytes"`
		Tx      json.RawMessage `json:"tx"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err := json.Unmarshal(body, &req); err != nil {
		gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	if req.TxBytes == "" {
		if len(req.Tx) > 0 && string(req.Tx) != "null" {
			// The deprecated JSON tx needs every message's JSON codec; wallets send bytes.
			gateway.WriteError(w, http.StatusBadRequest, 3, "the devnet simulates tx_bytes only; send the tx as tx_bytes")
			return
		}
		gateway.WriteError(w, http.StatusBadRequest, 3, "empty txBytes is not allowed")
		return
	}
	raw, err := base64.StdEncoding.DecodeString(req.TxBytes)
	if err != nil || len(raw) == 0 {
		gateway.WriteError(w, http.StatusBadRequest, 3, "invalid tx_bytes")
		return
	}
	res := s.c.Simulate(raw)
	if res.Code != 0 {
		gateway.WriteError(w, http.StatusInternalServerError, 2, engine.SimulateError(res))
		return
	}
	var data any
	if len(res.Data) > 0 {
		data = b64(res.Data)
	}
	responses := []any{}
	for _, a := range msgResponses(res.Data) {
		responses = append(responses, anyJSON(a))
	}
	writeJSON(w, http.StatusOK, ordered{
		{"gas_info", ordered{{"gas_wanted", strconv.FormatUint(engine.SimulateGasWanted, 10)}, {"gas_used", strconv.FormatInt(res.GasUsed, 10)}}},
		{"result", ordered{{"data", data}, {"log", res.Log}, {"events", events(res.Events)}, {"msg_responses", responses}}},
	})
}

// anyJSON renders a msg response Any by its type URL: the devnet's responses carry no field a
// wallet reads from a simulation, so the value stays out.
func anyJSON(b []byte) ordered {
	var url string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			break
		}
		if num == 1 && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b)
			url = string(v)
		}
		b = b[m:]
	}
	return ordered{{"@type", url}}
}
