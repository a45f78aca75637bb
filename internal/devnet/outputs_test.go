package devnet

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
)

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil && resp.StatusCode == 200 {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v: %s", url, err, b)
		}
	}
	return resp.StatusCode
}

// TestOutputsOverHTTP: after seeded withdrawals, the L1's outputs list answers InterwovenKit's
// latest-output query (GET …/bridges/{id}/outputs?pagination.reverse=true&pagination.limit=1,
// packages/interwovenkit-react/src/pages/bridge/op/data.ts useLatestOutput) with the output
// of the rollup's newest withdrawal as its executor reports it, the full list holds every
// output as /outputs/{index} does, and migration_info/by_l1_denom answers the querier's
// NotFound for a bridge that was never migrated (data.ts checkMigrationInfo reads a 404 as
// "not migrated").
func TestOutputsOverHTTP(t *testing.T) {
	n := startManual(t, 8, func(c *Config) { c.BridgeTraffic = 0.6 })
	produce(t, n, 30)
	l1, _ := n.Chain(l1ID)
	checked := 0
	for _, c := range n.Chains() {
		doc := n.chainDoc(c)
		if doc.Metadata.OpBridgeID == "" {
			continue
		}
		base := l1.REST() + "/opinit/ophost/v1/bridges/" + doc.Metadata.OpBridgeID
		type output struct {
			BridgeID       string `json:"bridge_id"`
			OutputIndex    string `json:"output_index"`
			OutputProposal struct {
				OutputRoot    []byte `json:"output_root"`
				L1BlockTime   string `json:"l1_block_time"`
				L2BlockNumber string `json:"l2_block_number"`
			} `json:"output_proposal"`
		}
		var latest, all struct {
			OutputProposals []output `json:"output_proposals"`
			Pagination      struct {
				NextKey *string `json:"next_key"`
				Total   string  `json:"total"`
			}
		}
		if code := getJSON(t, base+"/outputs?pagination.reverse=true&pagination.limit=1", &latest); code != 200 || len(latest.OutputProposals) != 1 {
			t.Fatalf("%s latest output: %d %+v", c.ID(), code, latest)
		}
		top := latest.OutputProposals[0]
		var w struct {
			Sequence    uint64 `json:"sequence"`
			OutputIndex uint64 `json:"output_index"`
		}
		idx, _ := strconv.ParseUint(top.OutputIndex, 10, 64)
		if code := getJSON(t, fmt.Sprintf("%s/withdrawal/%d", n.ExecutorURL(c.ID()), idx), &w); code != 200 || w.OutputIndex != idx {
			t.Errorf("%s: executor's withdrawal %d: %d %+v", c.ID(), idx, code, w)
		}
		if code := getJSON(t, fmt.Sprintf("%s/withdrawal/%d", n.ExecutorURL(c.ID()), idx+1), nil); code != 404 {
			t.Errorf("%s: a withdrawal after the latest output: %d", c.ID(), code)
		}
		if top.BridgeID != doc.Metadata.OpBridgeID || len(top.OutputProposal.OutputRoot) != 32 {
			t.Errorf("%s latest output %+v", c.ID(), top)
		}
		if code := getJSON(t, base+"/outputs?pagination.count_total=true", &all); code != 200 || len(all.OutputProposals) != int(idx) || all.Pagination.Total != top.OutputIndex || all.Pagination.NextKey != nil {
			t.Errorf("%s all outputs: %d, %d of them, pagination %+v", c.ID(), code, len(all.OutputProposals), all.Pagination)
		}
		var one output
		if code := getJSON(t, base+"/outputs/"+top.OutputIndex, &one); code != 200 || fmt.Sprint(one) != fmt.Sprint(all.OutputProposals[len(all.OutputProposals)-1]) {
			t.Errorf("%s outputs/%s: %d %+v, list ends with %+v", c.ID(), top.OutputIndex, code, one, all.OutputProposals[len(all.OutputProposals)-1])
		}
		resp, err := http.Get(base + "/migration_info/by_l1_denom?l1_denom=uinit")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || string(b) != `{"code":5, "message":"migration info not found", "details":[]}` {
			t.Errorf("%s migration_info: %d %s", c.ID(), resp.StatusCode, b)
		}
		checked++
	}
	if checked != 3 {
		t.Fatalf("%d bridged rollups", checked)
	}
}
