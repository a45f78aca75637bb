package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/router/track"
)

// statusStreamPoll is how often a status stream reads the tracking store when
// Config.StatusStreamPoll is unset. The store is what every router replica shares, so a
// stream on any replica follows a transfer whichever replica's tracker advances it.
const statusStreamPoll = time.Second

// txStatusStream: GET /v2/tx/status/stream?tx_hash=&chain_id=, the /v2/tx/status body as an
// event each time it changes (event "status", id a counter), ending after a terminal state.
// It replaces the one-second polling of /v2/tx/status that InterwovenKit and the Skip client
// do (see docs/router-api.md).
func (s *server) txStatusStream(r *http.Request) (httpapi.Producer, error) {
	// The first read answers as /v2/tx/status would: an unknown tx is its 404, not a stream.
	tr, chainID, hash, doc, err := s.status(r)
	if err != nil {
		return nil, err
	}
	every := s.cfg.StatusStreamPoll
	if every <= 0 {
		every = statusStreamPoll
	}
	return func(st *httpapi.Stream) error {
		ctx := st.Context()
		t := time.NewTicker(every)
		defer t.Stop()
		var last []byte
		n := 0
		for {
			if !bytes.Equal(doc, last) {
				n++
				if err := st.Send(strconv.Itoa(n), "status", compact(doc)); err != nil {
					return err
				}
				last = doc
				if terminal(doc) {
					return nil
				}
			}
			select {
			case <-ctx.Done():
				return nil
			case <-t.C:
			}
			next, err := tr.Status(ctx, chainID, hash)
			if err != nil {
				return trackErr(err, chainID)
			}
			doc = next
		}
	}, nil
}

// compact puts the body on one line (one data field); it is the same JSON.
func compact(doc []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, doc) != nil {
		return doc
	}
	return b.Bytes()
}

// terminal: the transfer will not change any more (the outcome is in state; status is
// STATE_COMPLETED on each terminal state, see docs/router-api.md).
func terminal(doc []byte) bool {
	var d struct{ State string }
	if json.Unmarshal(doc, &d) != nil {
		return false
	}
	return track.Terminal(d.State)
}
