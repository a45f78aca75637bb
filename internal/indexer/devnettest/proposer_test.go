package devnettest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// TestProposerSurvivesFailedLookup pins down, deterministically, the one way the devnet's
// fault mode made TestFaultTolerance store different data: the first OPinit validator lookup
// answered with the devnet's injected 500 (a gateway error body with gRPC code 13, which the
// REST client once took as the node's final word; it now retries it, and the pipeline must not
// depend on which). Ingestion must still store every block with its proposer, exactly as a run
// without the fault does.
func TestProposerSurvivesFailedLookup(t *testing.T) {
	n := startNet(t, netConfig())
	if err := n.ProduceBlocks(t.Context(), produced); err != nil {
		t.Fatal(err)
	}
	r := rollups[0]
	ep := n.Endpoints()[r.chainID]
	ref := openStore(t, backends[0].dsn(t))
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := ingestChain(ctx, ep, r, ref, tip); err != nil {
		t.Fatal(err)
	}

	target, err := url.Parse(ep.REST)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var failed atomic.Bool
	rest := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/opinit/opchild/v1/validators") && failed.CompareAndSwap(false, true) {
			// The body the devnet's fault injector sends with its 500s.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"code":13, "message":"injected fault: internal error", "details":[]}`))
			return
		}
		proxy.ServeHTTP(w, req)
	}))
	defer rest.Close()
	ep.REST = rest.URL

	db := openStore(t, backends[0].dsn(t))
	if err := ingestChain(ctx, ep, r, db, tip); err != nil {
		t.Fatal(err)
	}
	if !failed.Load() {
		t.Fatal("the validator lookup was never made")
	}
	if got, want := dump(t, db), dump(t, ref); !bytes.Equal(got, want) {
		t.Errorf("one failed validator lookup changed the stored data:\n%s", firstDiff(got, want))
	}
}
