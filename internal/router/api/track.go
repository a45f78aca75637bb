package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
	"github.com/rollgate/rollgate/internal/router/route"
	"github.com/rollgate/rollgate/internal/router/track"
	"github.com/rollgate/rollgate/internal/router/wire"
	"github.com/rollgate/rollgate/internal/textclip"
)

// Reasons of the tracking endpoints.
const (
	ReasonTxNotFound    = "TX_NOT_FOUND"
	ReasonInvalidTxHash = "INVALID_TX_HASH"
	ReasonInvalidTx     = "INVALID_TX"
	ReasonTxRejected    = "TX_REJECTED"
	ReasonNoTracker     = "TRACKING_DISABLED"
)

// Tracker is what the tracking endpoints need (*track.Tracker implements it).
type Tracker interface {
	Track(ctx context.Context, chainID, hash string) (track.TrackResponse, error)
	Retry(ctx context.Context, chainID, hash string) (track.TrackResponse, error)
	Submit(ctx context.Context, chainID string, tx []byte) (track.TrackResponse, error)
	Status(ctx context.Context, chainID, hash string) (json.RawMessage, error)
}

// trackErr turns the tracker's domain errors into API errors.
func trackErr(err error, chainID string) error {
	var rej *track.RejectedError
	switch {
	case errors.Is(err, track.ErrUnknownChain):
		return apierr.NotFoundf("chain ID not supported: %s", chainID).WithDetails("UNKNOWN_CHAIN")
	case errors.Is(err, track.ErrInvalidHash):
		return apierr.BadRequest("%v", err).WithDetails(ReasonInvalidTxHash)
	case errors.Is(err, track.ErrNotFound):
		return apierr.NotFoundf("tx not found").WithDetails(ReasonTxNotFound).
			WithInfo("register the tx with POST /v2/tx/track (or send it through /v2/tx/submit) first")
	case errors.As(err, &rej):
		return apierr.BadRequest("%v", rej).WithDetails(ReasonTxRejected)
	case track.StoreUnavailable(err):
		// The database is away for a moment (the tracker retries on its own): say so, and
		// that the same request may be sent again.
		return &apierr.Error{Code: apierr.Unavailable, Message: "transfer store unavailable; retry", Details: []string{"STORE_UNAVAILABLE"}, Cause: err}
	case track.ChainUnavailable(err):
		// The chain's RPC did not answer (it used to be taken for the store's weather).
		return &apierr.Error{Code: apierr.Unavailable, Message: "chain " + textclip.Clip(chainID) + " RPC unavailable; retry", Details: []string{ReasonChainUnavailable}, Cause: err}
	}
	return err
}

func (s *server) tracker() (Tracker, error) {
	if s.cfg.Tracker == nil {
		return nil, apierr.NotFoundf("transfer tracking is not enabled on this router").WithDetails(ReasonNoTracker)
	}
	return s.cfg.Tracker, nil
}

func missing(field string) error {
	return apierr.BadRequest("%s is required", field).WithDetails(route.ReasonMissingField)
}

func (s *server) txTrack(r *http.Request) (any, error) {
	return s.byHash(r, Tracker.Track)
}

// byHash serves a {tx_hash, chain_id} body (/v2/tx/track, /v2/tx/retry_track) with one of
// the tracker's methods.
func (s *server) byHash(r *http.Request, do func(Tracker, context.Context, string, string) (track.TrackResponse, error)) (any, error) {
	tr, err := s.tracker()
	if err != nil {
		return nil, err
	}
	var req wire.TrackRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	switch {
	case req.TxHash == "":
		return nil, missing("tx_hash")
	case req.ChainID == "":
		return nil, missing("chain_id")
	}
	res, err := do(tr, r.Context(), req.ChainID, req.TxHash)
	if err != nil {
		return nil, trackErr(err, req.ChainID)
	}
	return res, nil
}

func (s *server) txSubmit(r *http.Request) (any, error) {
	tr, err := s.tracker()
	if err != nil {
		return nil, err
	}
	var req wire.SubmitRequest
	if err := s.decode(r, &req); err != nil {
		return nil, err
	}
	switch {
	case req.Tx == "":
		return nil, missing("tx")
	case req.ChainID == "":
		return nil, missing("chain_id")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(req.Tx))
	if err != nil || len(raw) == 0 {
		return nil, apierr.BadRequest("tx must be base64 encoded").WithDetails(ReasonInvalidTx)
	}
	if err := checkSigned(raw); err != nil {
		return nil, apierr.BadRequest("tx is not a signed transaction: %v", err).WithDetails(ReasonInvalidTx)
	}
	res, err := tr.Submit(r.Context(), req.ChainID, raw)
	if err != nil {
		return nil, trackErr(err, req.ChainID)
	}
	return res, nil
}

// checkSigned accepts only what a chain could accept: a TxRaw whose body and auth info
// decode, with at least one message and one non-empty signature per signer info. The router
// is no open relay for arbitrary bytes (a node would refuse them anyway, after a round trip
// the router pays for); the signatures themselves are the chain's to verify, against
// accounts the router does not keep. Where the bytes go is never the request's to say: the
// chain's RPC comes from the registry.
func checkSigned(raw []byte) error {
	tx, err := txcodec.Decode(raw)
	if err != nil {
		// Not the decoder's text: protobuf varies its error strings on purpose.
		return errors.New("the bytes are not a TxRaw with a decodable body and auth info")
	}
	switch {
	case len(tx.Body.Messages) == 0:
		return errors.New("no messages")
	case len(tx.AuthInfo.SignerInfos) == 0:
		return errors.New("no signer infos")
	case len(tx.Raw.Signatures) != len(tx.AuthInfo.SignerInfos):
		return fmt.Errorf("%d signatures for %d signers", len(tx.Raw.Signatures), len(tx.AuthInfo.SignerInfos))
	}
	for i, sig := range tx.Raw.Signatures {
		if len(sig) == 0 {
			return fmt.Errorf("signature %d is empty", i)
		}
	}
	return nil
}

func (s *server) txStatus(r *http.Request) (any, error) {
	_, _, _, doc, err := s.status(r)
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// status reads the transfer a ?tx_hash=&chain_id= query names (/v2/tx/status and its stream)
// and returns the tracker and the two parameters with it.
func (s *server) status(r *http.Request) (tr Tracker, chainID, hash string, doc json.RawMessage, err error) {
	if tr, err = s.tracker(); err != nil {
		return nil, "", "", nil, err
	}
	q := r.URL.Query()
	hash, chainID = q.Get("tx_hash"), q.Get("chain_id")
	switch {
	case hash == "":
		return nil, "", "", nil, missing("tx_hash")
	case chainID == "":
		return nil, "", "", nil, missing("chain_id")
	}
	if doc, err = tr.Status(r.Context(), chainID, hash); err != nil {
		return nil, "", "", nil, trackErr(err, chainID)
	}
	return tr, chainID, hash, doc, nil
}
