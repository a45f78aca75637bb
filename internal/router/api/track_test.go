package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/proto"

	bankv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/bank/v1beta1"
	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/registry"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/testutil"
)

// fakeTracker answers like *track.Tracker for one known tx on one chain.
type fakeTracker struct {
	submitted []byte
	retried   string
}

const knownHash = "39208D72B5A8EA1AFDFC52165C15D2E9419EDB66D6676D29430BD4BAE9E471DF"

// errStoreDown is what the tracker's store answers while PostgreSQL restarts.
var errStoreDown = fmt.Errorf("track register: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"})

func (f *fakeTracker) Track(_ context.Context, chainID, hash string) (track.TrackResponse, error) {
	if chainID == "store-down-1" {
		return track.TrackResponse{}, errStoreDown
	}
	if chainID != "initia-devnet-1" {
		return track.TrackResponse{}, track.ErrUnknownChain
	}
	h, err := track.NormalizeHash(hash)
	if err != nil {
		return track.TrackResponse{}, err
	}
	return track.TrackResponse{TxHash: h, ExplorerLink: "x/" + h}, nil
}

// Retry knows knownHash on initia-devnet-1 as an abandoned transfer; any other hash is
// unregistered.
func (f *fakeTracker) Retry(ctx context.Context, chainID, hash string) (track.TrackResponse, error) {
	if chainID == "store-down-1" {
		return track.TrackResponse{}, errStoreDown
	}
	res, err := f.Track(ctx, chainID, hash)
	if err != nil {
		return res, err
	}
	if res.TxHash != knownHash {
		return track.TrackResponse{}, track.ErrNotFound
	}
	f.retried = res.TxHash
	return res, nil
}

func (f *fakeTracker) Submit(ctx context.Context, chainID string, tx []byte) (track.TrackResponse, error) {
	if d, err := txcodec.Decode(tx); err == nil && d.Body.Memo == "rejected" {
		return track.TrackResponse{}, &track.RejectedError{Code: 5, Codespace: "sdk", Log: "insufficient funds"}
	}
	f.submitted = tx
	return f.Track(ctx, chainID, track.TxHash(tx))
}

func (f *fakeTracker) Status(_ context.Context, chainID, hash string) (json.RawMessage, error) {
	h, err := track.NormalizeHash(hash)
	if err != nil {
		return nil, err
	}
	if chainID == "store-down-1" {
		return nil, errStoreDown
	}
	if chainID != "initia-devnet-1" || h != knownHash {
		return nil, track.ErrNotFound
	}
	return json.RawMessage(`{"state":"STATE_SUBMITTED","status":"STATE_SUBMITTED","transfer_sequence":[]}`), nil
}

// signedTx is a signed bank send on the devnet L1 carrying memo, base64 as /v2/tx/submit
// takes it, and its bytes.
func signedTx(t testing.TB, memo string) (string, []byte) {
	t.Helper()
	k, err := txcodec.PrivKeyFromSeed(txcodec.EthSecp256k1, "track-test")
	if err != nil {
		t.Fatal(err)
	}
	b := txcodec.Builder{ChainID: "initia-devnet-1", Memo: memo, GasLimit: 200_000,
		Msgs:    []proto.Message{&bankv1beta1.MsgSend{FromAddress: userInit, ToAddress: user2Init}},
		Signers: []txcodec.Signer{{Key: k}}}
	raw, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(raw), raw
}

// unsignedTx is raw with its signatures replaced (nil: none; else these).
func unsignedTx(t testing.TB, raw []byte, sigs [][]byte) string {
	t.Helper()
	var tx txv1beta1.TxRaw
	if err := proto.Unmarshal(raw, &tx); err != nil {
		t.Fatal(err)
	}
	tx.Signatures = sigs
	out, err := proto.Marshal(&tx)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(out)
}

// TestTrackEndpoints checks the tracking endpoints' answers and that every client mistake is a
// 4xx JSON error with a reason (never a 5xx).
func TestTrackEndpoints(t *testing.T) {
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		t.Fatal(err)
	}
	ft := &fakeTracker{}
	h := New(Config{Tracker: ft}, registry.NewLive(reg), nil, prometheus.NewRegistry())
	good, goodRaw := signedTx(t, "")
	rejected, _ := signedTx(t, "rejected")
	off := New(Config{}, registry.NewLive(reg), nil, prometheus.NewRegistry())
	cases := []struct {
		name       string
		h          http.Handler
		method     string
		path, body string
		want       int
		reason     string // details[0] of an error, or a substring of a 200 body
	}{
		{"track", h, http.MethodPost, "/v2/tx/track", `{"tx_hash":"0x` + strings.ToLower(knownHash) + `","chain_id":"initia-devnet-1"}`, 200, `"tx_hash":"` + knownHash},
		{"track missing hash", h, http.MethodPost, "/v2/tx/track", `{"chain_id":"initia-devnet-1"}`, 400, "MISSING_FIELD"},
		{"track missing chain", h, http.MethodPost, "/v2/tx/track", `{"tx_hash":"` + knownHash + `"}`, 400, "MISSING_FIELD"},
		{"track bad hash", h, http.MethodPost, "/v2/tx/track", `{"tx_hash":"xyz","chain_id":"initia-devnet-1"}`, 400, ReasonInvalidTxHash},
		{"track short hash", h, http.MethodPost, "/v2/tx/track", `{"tx_hash":"ABCD","chain_id":"initia-devnet-1"}`, 400, ReasonInvalidTxHash},
		{"track unknown chain", h, http.MethodPost, "/v2/tx/track", `{"tx_hash":"` + knownHash + `","chain_id":"nope-1"}`, 404, "UNKNOWN_CHAIN"},
		{"track bad json", h, http.MethodPost, "/v2/tx/track", `{"tx_hash":`, 400, ReasonInvalidJSON},
		{"status", h, http.MethodGet, "/v2/tx/status?chain_id=initia-devnet-1&tx_hash=" + knownHash, "", 200, `"status":"STATE_SUBMITTED"`},
		{"status unknown tx", h, http.MethodGet, "/v2/tx/status?chain_id=initia-devnet-1&tx_hash=" + strings.Repeat("00", 32), "", 404, ReasonTxNotFound},
		{"status unknown chain", h, http.MethodGet, "/v2/tx/status?chain_id=nope-1&tx_hash=" + knownHash, "", 404, ReasonTxNotFound},
		{"status bad hash", h, http.MethodGet, "/v2/tx/status?chain_id=initia-devnet-1&tx_hash=zz", "", 400, ReasonInvalidTxHash},
		{"status missing", h, http.MethodGet, "/v2/tx/status?chain_id=initia-devnet-1", "", 400, "MISSING_FIELD"},
		{"status wrong method", h, http.MethodPost, "/v2/tx/status", `{}`, 405, "METHOD_NOT_ALLOWED"},
		{"submit", h, http.MethodPost, "/v2/tx/submit", `{"tx":"` + good + `","chain_id":"initia-devnet-1"}`, 200, `"tx_hash":"` + track.TxHash(goodRaw)},
		{"submit not base64", h, http.MethodPost, "/v2/tx/submit", `{"tx":"!!","chain_id":"initia-devnet-1"}`, 400, ReasonInvalidTx},
		{"submit not a tx", h, http.MethodPost, "/v2/tx/submit", `{"tx":"dHhieXRlcw==","chain_id":"initia-devnet-1"}`, 400, ReasonInvalidTx},
		{"submit unsigned", h, http.MethodPost, "/v2/tx/submit", `{"tx":"` + unsignedTx(t, goodRaw, nil) + `","chain_id":"initia-devnet-1"}`, 400, ReasonInvalidTx},
		{"submit empty signature", h, http.MethodPost, "/v2/tx/submit", `{"tx":"` + unsignedTx(t, goodRaw, [][]byte{{}}) + `","chain_id":"initia-devnet-1"}`, 400, ReasonInvalidTx},
		{"submit missing tx", h, http.MethodPost, "/v2/tx/submit", `{"chain_id":"initia-devnet-1"}`, 400, "MISSING_FIELD"},
		{"submit rejected", h, http.MethodPost, "/v2/tx/submit", `{"tx":"` + rejected + `","chain_id":"initia-devnet-1"}`, 400, ReasonTxRejected},
		{"submit unknown chain", h, http.MethodPost, "/v2/tx/submit", `{"tx":"` + good + `","chain_id":"nope-1"}`, 404, "UNKNOWN_CHAIN"},
		{"track store down", h, http.MethodPost, "/v2/tx/track", `{"tx_hash":"` + knownHash + `","chain_id":"store-down-1"}`, 503, "STORE_UNAVAILABLE"},
		{"status store down", h, http.MethodGet, "/v2/tx/status?chain_id=store-down-1&tx_hash=" + knownHash, "", 503, "STORE_UNAVAILABLE"},
		{"retry track", h, http.MethodPost, "/v2/tx/retry_track", `{"tx_hash":"` + strings.ToLower(knownHash) + `","chain_id":"initia-devnet-1"}`, 200, `"tx_hash":"` + knownHash},
		{"retry track unregistered", h, http.MethodPost, "/v2/tx/retry_track", `{"tx_hash":"` + strings.Repeat("00", 32) + `","chain_id":"initia-devnet-1"}`, 404, ReasonTxNotFound},
		{"retry track missing hash", h, http.MethodPost, "/v2/tx/retry_track", `{"chain_id":"initia-devnet-1"}`, 400, "MISSING_FIELD"},
		{"retry track bad hash", h, http.MethodPost, "/v2/tx/retry_track", `{"tx_hash":"xyz","chain_id":"initia-devnet-1"}`, 400, ReasonInvalidTxHash},
		{"retry track unknown chain", h, http.MethodPost, "/v2/tx/retry_track", `{"tx_hash":"` + knownHash + `","chain_id":"nope-1"}`, 404, "UNKNOWN_CHAIN"},
		{"retry track bad json", h, http.MethodPost, "/v2/tx/retry_track", `[1,`, 400, ReasonInvalidJSON},
		{"retry track store down", h, http.MethodPost, "/v2/tx/retry_track", `{"tx_hash":"` + knownHash + `","chain_id":"store-down-1"}`, 503, "STORE_UNAVAILABLE"},
		{"retry track disabled", off, http.MethodPost, "/v2/tx/retry_track", `{"tx_hash":"` + knownHash + `","chain_id":"initia-devnet-1"}`, 404, ReasonNoTracker},
		{"tracking disabled", off, http.MethodGet, "/v2/tx/status?chain_id=initia-devnet-1&tx_hash=" + knownHash, "", 404, ReasonNoTracker},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			st, out := do(t, tc.h, tc.method, tc.path, body)
			if st != tc.want && !(tc.want == 405 && st == 400) {
				t.Fatalf("status %d, want %d: %s", st, tc.want, out)
			}
			testutil.Golden(t, "track/"+strings.ReplaceAll(tc.name, " ", "_")+".json", pretty(t, st, out))
			if st == 200 {
				if !strings.Contains(string(out), tc.reason) {
					t.Fatalf("answer %s lacks %s", out, tc.reason)
				}
				return
			}
			var e struct {
				Code    int      `json:"code"`
				Message string   `json:"message"`
				Details []string `json:"details"`
			}
			if err := json.Unmarshal(out, &e); err != nil || len(e.Details) == 0 || e.Details[0] != tc.reason || e.Message == "" {
				t.Fatalf("error body %s, want reason %s", out, tc.reason)
			}
		})
	}
	if ft.retried != knownHash {
		t.Errorf("the tracker was asked to retry %q", ft.retried)
	}
	if !bytes.Equal(ft.submitted, goodRaw) {
		t.Errorf("the tracker was handed %q", ft.submitted)
	}
}

// FuzzTracking feeds arbitrary bodies to /v2/tx/track and /v2/tx/submit and arbitrary queries
// to /v2/tx/status, over a tracker that knows one chain: never a 5xx, never a 4xx without a
// reason, and nothing reaches the tracker's Submit that is not a signed TxRaw. Plain runs
// check the seeds and testdata/fuzz/FuzzTracking; `go test -fuzz FuzzTracking` explores.
func FuzzTracking(f *testing.F) {
	good, _ := signedTx(f, "")
	for _, s := range []string{
		`{"tx_hash":"` + knownHash + `","chain_id":"initia-devnet-1"}`,
		`{"tx":"` + good + `","chain_id":"initia-devnet-1"}`,
		`{"tx":"dHhieXRlcw==","chain_id":"initia-devnet-1"}`,
		`{"tx_hash":"0x` + strings.ToLower(knownHash) + `","chain_id":"store-down-1"}`,
		`tx_hash=` + knownHash + `&chain_id=initia-devnet-1`,
		`tx_hash=%zz&chain_id=`,
		`{"tx":["a"],"chain_id":7}`,
	} {
		f.Add(s)
	}
	reg, err := registry.Load("../registry/testdata/devnet")
	if err != nil {
		f.Fatal(err)
	}
	ft := &fakeTracker{}
	h := New(Config{Tracker: ft}, registry.NewLive(reg), nil, prometheus.NewRegistry())
	f.Fuzz(func(t *testing.T, in string) {
		ft.submitted = nil
		for _, c := range []struct{ method, path, body string }{
			{http.MethodPost, "/v2/tx/track", in},
			{http.MethodPost, "/v2/tx/submit", in},
			{http.MethodGet, "/v2/tx/status?" + in, ""},
		} {
			var body any
			if c.body != "" {
				body = c.body
			}
			st, out := do(t, h, c.method, c.path, body)
			if st >= 500 && !(st == 503 && strings.Contains(string(out), "STORE_UNAVAILABLE")) {
				t.Fatalf("%s %q: %d %s", c.path, in, st, out)
			}
			if st >= 400 {
				var e struct{ Details []string }
				if json.Unmarshal(out, &e) != nil || len(e.Details) == 0 {
					t.Fatalf("%s %q: error without reason: %s", c.path, in, out)
				}
			}
		}
		if ft.submitted != nil {
			if err := checkSigned(ft.submitted); err != nil {
				t.Fatalf("the tracker was handed an unsigned tx: %v", err)
			}
		}
	})
}
