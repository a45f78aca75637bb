package ibc

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/rollgate/rollgate/internal/chain/denom"
	"github.com/rollgate/rollgate/internal/devnet/internal/gateway"
	"github.com/rollgate/rollgate/internal/devnet/internal/sim"
)

// Routes implements sim.Module with the ibc-go v8 gateway routes a router, wallet or
// relayer reads (channels, connections, client state, denom traces, escrow address), in
// the gateway's JSON shapes (uint64 as strings, defaults emitted).
func (m *Module) Routes(mux *http.ServeMux, at sim.QueryAt) {
	mux.HandleFunc("GET /ibc/core/channel/v1/channels", m.with(at, m.restChannels))
	mux.HandleFunc("GET /ibc/core/channel/v1/channels/{channel_id}/ports/{port_id}", m.with(at, m.restChannel))
	mux.HandleFunc("GET /ibc/core/channel/v1/channels/{channel_id}/ports/{port_id}/client_state", m.with(at, m.restClientState))
	mux.HandleFunc("GET /ibc/core/channel/v1/channels/{channel_id}/ports/{port_id}/next_sequence_send", m.with(at, m.restNextSeq))
	mux.HandleFunc("GET /ibc/core/connection/v1/connections/{connection_id}", m.with(at, m.restConnection))
	mux.HandleFunc("GET /ibc/apps/transfer/v1/denom_traces", m.with(at, m.restDenomTraces))
	mux.HandleFunc("GET /ibc/apps/transfer/v1/denom_traces/{hash...}", m.with(at, m.restDenomTrace))
	mux.HandleFunc("GET /ibc/apps/transfer/v1/denom_hashes/{trace...}", m.with(at, m.restDenomHash))
	mux.HandleFunc("GET /ibc/apps/transfer/v1/denoms", m.with(at, m.restDenoms))
	mux.HandleFunc("GET /ibc/apps/transfer/v1/denoms/{hash...}", m.with(at, m.restDenom))
	mux.HandleFunc("GET /ibc/apps/transfer/v1/channels/{channel_id}/ports/{port_id}/escrow_address", m.with(at, m.restEscrow))
}

type restFn func(w http.ResponseWriter, r *http.Request, q sim.Query)

func (m *Module) with(at sim.QueryAt, fn restFn) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, err := at(r)
		if err != nil {
			gateway.WriteError(w, http.StatusBadRequest, 3, err.Error())
			return
		}
		fn(w, r, q)
	}
}

// WriteJSON writes a JSON body.
func WriteJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 13, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

type jsonHeight struct {
	RevisionNumber string `json:"revision_number"`
	RevisionHeight string `json:"revision_height"`
}

func selfHeight(q sim.Query) jsonHeight {
	return jsonHeight{strconv.FormatUint(RevisionNumber(q.ChainID()), 10), strconv.FormatInt(q.Height(), 10)}
}

type jsonPagination struct {
	NextKey *string `json:"next_key"`
	Total   string  `json:"total"`
}

type jsonCounterparty struct {
	PortID    string `json:"port_id"`
	ChannelID string `json:"channel_id"`
}

type jsonChannel struct {
	State           string           `json:"state"`
	Ordering        string           `json:"ordering"`
	Counterparty    jsonCounterparty `json:"counterparty"`
	ConnectionHops  []string         `json:"connection_hops"`
	Version         string           `json:"version"`
	PortID          string           `json:"port_id,omitempty"`
	ChannelID       string           `json:"channel_id,omitempty"`
	UpgradeSequence string           `json:"upgrade_sequence"`
}

func toJSONChannel(ch Channel, identified bool) jsonChannel {
	j := jsonChannel{State: "STATE_OPEN", Ordering: "ORDER_UNORDERED",
		Counterparty:   jsonCounterparty{ch.CounterpartyPortID, ch.CounterpartyChannelID},
		ConnectionHops: []string{ch.ConnectionID}, Version: Version, UpgradeSequence: "0"}
	if isNFTPort(ch.PortID) {
		j.Version = NFTVersion
	}
	if identified {
		j.PortID, j.ChannelID = ch.PortID, ch.ChannelID
	}
	return j
}

// channels lists the configured channels in state order.
func channels(kv sim.KVReader) []Channel {
	var out []Channel
	kv.Iterate("channel/", func(_ string, v []byte) bool {
		var ch Channel
		if json.Unmarshal(v, &ch) == nil {
			out = append(out, ch)
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return channelLess(out[i].ChannelID, out[j].ChannelID) })
	return out
}

func channelLess(a, b string) bool {
	na, ea := strconv.Atoi(strings.TrimPrefix(a, "channel-"))
	nb, eb := strconv.Atoi(strings.TrimPrefix(b, "channel-"))
	if ea == nil && eb == nil {
		return na < nb
	}
	return a < b
}

func (m *Module) restChannels(w http.ResponseWriter, _ *http.Request, q sim.Query) {
	chs := channels(q.Store(StoreName))
	list := make([]jsonChannel, 0, len(chs))
	for _, ch := range chs {
		list = append(list, toJSONChannel(ch, true))
	}
	WriteJSON(w, struct {
		Channels   []jsonChannel  `json:"channels"`
		Pagination jsonPagination `json:"pagination"`
		Height     jsonHeight     `json:"height"`
	}{list, jsonPagination{Total: strconv.Itoa(len(list))}, selfHeight(q)})
}

func (m *Module) channelOr404(w http.ResponseWriter, r *http.Request, q sim.Query) (Channel, bool) {
	port, id := r.PathValue("port_id"), r.PathValue("channel_id")
	ch, ok := getChannel(q.Store(StoreName), port, id)
	if !ok {
		gateway.WriteError(w, http.StatusNotFound, 5, "port-id: "+port+", channel-id: "+id+": channel not found")
	}
	return ch, ok
}

func (m *Module) restChannel(w http.ResponseWriter, r *http.Request, q sim.Query) {
	ch, ok := m.channelOr404(w, r, q)
	if !ok {
		return
	}
	WriteJSON(w, struct {
		Channel     jsonChannel `json:"channel"`
		Proof       []byte      `json:"proof"`
		ProofHeight jsonHeight  `json:"proof_height"`
	}{toJSONChannel(ch, false), nil, selfHeight(q)})
}

func (m *Module) restNextSeq(w http.ResponseWriter, r *http.Request, q sim.Query) {
	ch, ok := m.channelOr404(w, r, q)
	if !ok {
		return
	}
	seq := getUint(q.Store(StoreName), nextSeqKey(ch.PortID, ch.ChannelID))
	WriteJSON(w, struct {
		NextSequenceSend string     `json:"next_sequence_send"`
		Proof            []byte     `json:"proof"`
		ProofHeight      jsonHeight `json:"proof_height"`
	}{strconv.FormatUint(seq, 10), nil, selfHeight(q)})
}

func (m *Module) restClientState(w http.ResponseWriter, r *http.Request, q sim.Query) {
	ch, ok := m.channelOr404(w, r, q)
	if !ok {
		return
	}
	h := getUint(q.Store(StoreName), clientHeightKey(ch.ClientID))
	rev := strconv.FormatUint(RevisionNumber(ch.CounterpartyChainID), 10)
	cs := struct {
		Type                         string            `json:"@type"`
		ChainID                      string            `json:"chain_id"`
		TrustLevel                   map[string]string `json:"trust_level"`
		TrustingPeriod               string            `json:"trusting_period"`
		UnbondingPeriod              string            `json:"unbonding_period"`
		MaxClockDrift                string            `json:"max_clock_drift"`
		FrozenHeight                 jsonHeight        `json:"frozen_height"`
		LatestHeight                 jsonHeight        `json:"latest_height"`
		ProofSpecs                   []any             `json:"proof_specs"`
		UpgradePath                  []string          `json:"upgrade_path"`
		AllowUpdateAfterExpiry       bool              `json:"allow_update_after_expiry"`
		AllowUpdateAfterMisbehaviour bool              `json:"allow_update_after_misbehaviour"`
	}{"/ibc.lightclients.tendermint.v1.ClientState", ch.CounterpartyChainID, map[string]string{"denominator": "3", "numerator": "1"},
		"1209600s", "1814400s", "20s", jsonHeight{"0", "0"}, jsonHeight{rev, strconv.FormatUint(h, 10)}, []any{},
		[]string{"upgrade", "upgradedIBCState"}, true, true}
	type identified struct {
		ClientID    string `json:"client_id"`
		ClientState any    `json:"client_state"`
	}
	WriteJSON(w, struct {
		IdentifiedClientState identified `json:"identified_client_state"`
		Proof                 []byte     `json:"proof"`
		ProofHeight           jsonHeight `json:"proof_height"`
	}{identified{ch.ClientID, cs}, nil, selfHeight(q)})
}

func (m *Module) restConnection(w http.ResponseWriter, r *http.Request, q sim.Query) {
	id := r.PathValue("connection_id")
	for _, ch := range channels(q.Store(StoreName)) {
		if ch.ConnectionID != id {
			continue
		}
		type version struct {
			Identifier string   `json:"identifier"`
			Features   []string `json:"features"`
		}
		type counterparty struct {
			ClientID     string            `json:"client_id"`
			ConnectionID string            `json:"connection_id"`
			Prefix       map[string]string `json:"prefix"`
		}
		type connection struct {
			ClientID     string       `json:"client_id"`
			Versions     []version    `json:"versions"`
			State        string       `json:"state"`
			Counterparty counterparty `json:"counterparty"`
			DelayPeriod  string       `json:"delay_period"`
		}
		WriteJSON(w, struct {
			Connection  connection `json:"connection"`
			Proof       []byte     `json:"proof"`
			ProofHeight jsonHeight `json:"proof_height"`
		}{connection{ch.ClientID, []version{{"1", []string{"ORDER_ORDERED", "ORDER_UNORDERED"}}}, "STATE_OPEN",
			counterparty{ch.CounterpartyClientID, ch.CounterpartyConnectionID, map[string]string{"key_prefix": "aWJj"}}, "0"},
			nil, selfHeight(q)})
		return
	}
	gateway.WriteError(w, http.StatusNotFound, 5, id+": connection not found")
}

type jsonTrace struct {
	Path      string `json:"path"`
	BaseDenom string `json:"base_denom"`
}

func traces(kv sim.KVReader) []denom.Trace {
	var out []denom.Trace
	kv.Iterate("trace/", func(_ string, v []byte) bool {
		if t, err := denom.ParseTrace(string(v)); err == nil {
			out = append(out, t)
		}
		return true
	})
	return out
}

func (m *Module) restDenomTraces(w http.ResponseWriter, _ *http.Request, q sim.Query) {
	ts := traces(q.Store(StoreName))
	list := make([]jsonTrace, 0, len(ts))
	for _, t := range ts {
		list = append(list, jsonTrace{t.Path, t.Base})
	}
	WriteJSON(w, struct {
		DenomTraces []jsonTrace    `json:"denom_traces"`
		Pagination  jsonPagination `json:"pagination"`
	}{list, jsonPagination{Total: strconv.Itoa(len(list))}})
}

func (m *Module) lookup(w http.ResponseWriter, r *http.Request, q sim.Query) (denom.Trace, bool) {
	h := strings.TrimPrefix(r.PathValue("hash"), "ibc/")
	p, ok := q.Store(StoreName).Get(traceKey(strings.ToUpper(h)))
	if !ok {
		gateway.WriteError(w, http.StatusNotFound, 5, h+": denomination trace not found")
		return denom.Trace{}, false
	}
	t, err := denom.ParseTrace(string(p))
	if err != nil {
		gateway.WriteError(w, http.StatusInternalServerError, 13, err.Error())
		return denom.Trace{}, false
	}
	return t, true
}

func (m *Module) restDenomTrace(w http.ResponseWriter, r *http.Request, q sim.Query) {
	t, ok := m.lookup(w, r, q)
	if !ok {
		return
	}
	WriteJSON(w, map[string]any{"denom_trace": jsonTrace{t.Path, t.Base}})
}

func (m *Module) restDenomHash(w http.ResponseWriter, r *http.Request, q sim.Query) {
	full := r.PathValue("trace")
	if _, ok := q.Store(StoreName).Get(traceKey(denom.IBCHash(full))); !ok {
		gateway.WriteError(w, http.StatusNotFound, 5, full+": denomination trace not found")
		return
	}
	WriteJSON(w, map[string]any{"hash": denom.IBCHash(full)})
}

// jsonDenom is ibc-go v10's Denom{base, trace[]} (the `denoms` routes).
type jsonDenom struct {
	Base  string             `json:"base"`
	Trace []jsonCounterparty `json:"trace"`
}

func toJSONDenom(t denom.Trace) jsonDenom {
	d := jsonDenom{Base: t.Base, Trace: []jsonCounterparty{}}
	for _, h := range t.Hops() {
		d.Trace = append(d.Trace, jsonCounterparty{h.Port, h.Channel})
	}
	return d
}

func (m *Module) restDenoms(w http.ResponseWriter, _ *http.Request, q sim.Query) {
	ts := traces(q.Store(StoreName))
	list := make([]jsonDenom, 0, len(ts))
	for _, t := range ts {
		list = append(list, toJSONDenom(t))
	}
	WriteJSON(w, struct {
		Denoms     []jsonDenom    `json:"denoms"`
		Pagination jsonPagination `json:"pagination"`
	}{list, jsonPagination{Total: strconv.Itoa(len(list))}})
}

func (m *Module) restDenom(w http.ResponseWriter, r *http.Request, q sim.Query) {
	t, ok := m.lookup(w, r, q)
	if !ok {
		return
	}
	WriteJSON(w, map[string]any{"denom": toJSONDenom(t)})
}

func (m *Module) restEscrow(w http.ResponseWriter, r *http.Request, q sim.Query) {
	WriteJSON(w, map[string]any{"escrow_address": bech32(q.AddressPrefix(), EscrowAddress(r.PathValue("port_id"), r.PathValue("channel_id")))})
}
