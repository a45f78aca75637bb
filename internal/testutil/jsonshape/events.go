package jsonshape

import (
	"encoding/json"
	"strings"
	"testing"
)

// Variants holds, per event type, the attribute key sequences seen.
type Variants map[string]map[string]bool

// Add records one event.
func (v Variants) Add(ev map[string]any, o EventOptions) {
	typ, keys := EventKey(ev, o)
	if v[typ] == nil {
		v[typ] = map[string]bool{}
	}
	v[typ][keys] = true
}

// EventOptions are how events are told apart.
type EventOptions struct {
	// FoldLog counts a run of "log" attributes (one per EVM log) as one "log+" key.
	FoldLog bool
}

// moveEvent is the chain's event type of Move events (an event type, not a VM kind).
const moveEvent = "move"

// EventKey names an event variant: its type, plus the Move type tag for `move` events
// (whose flat attributes depend on it), and its attribute keys in order, comma-joined.
func EventKey(ev map[string]any, o EventOptions) (typ, keys string) {
	typ, _ = ev["type"].(string)
	attrs, _ := ev["attributes"].([]any)
	var ks []string
	for _, a := range attrs {
		am, _ := a.(map[string]any)
		k, _ := am["key"].(string)
		if typ == moveEvent && k == "type_tag" {
			v, _ := am["value"].(string)
			typ = "move<" + v + ">"
		}
		if o.FoldLog && k == "log" {
			if len(ks) > 0 && ks[len(ks)-1] == "log+" {
				continue
			}
			k = "log+"
		}
		ks = append(ks, k)
	}
	return typ, strings.Join(ks, ",")
}

// TxEvents returns the events of every tx result of a CometBFT /block_results document.
func TxEvents(t testing.TB, doc []byte) [][]map[string]any {
	t.Helper()
	var d struct {
		Result struct {
			TxsResults []struct {
				Events []map[string]any `json:"events"`
			} `json:"txs_results"`
		} `json:"result"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var out [][]map[string]any
	for _, r := range d.Result.TxsResults {
		out = append(out, r.Events)
	}
	return out
}

// BlockResultVariants collects the event variants of the txs of /block_results documents.
func BlockResultVariants(t testing.TB, docs [][]byte, o EventOptions) Variants {
	t.Helper()
	v := Variants{}
	for _, d := range docs {
		for _, evs := range TxEvents(t, d) {
			for _, ev := range evs {
				v.Add(ev, o)
			}
		}
	}
	return v
}
