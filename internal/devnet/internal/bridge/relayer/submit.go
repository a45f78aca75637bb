package relayer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/rollgate/rollgate/internal/chain/address"
	"github.com/rollgate/rollgate/internal/chain/comet"
	"github.com/rollgate/rollgate/internal/chain/cosmosrest"
	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	"github.com/rollgate/rollgate/internal/chain/txcodec"
)

// HTTPSubmitter signs relayer transactions with txcodec and broadcasts them over a
// chain's public endpoints (account number and sequence from REST, broadcast_tx_sync over
// CometBFT RPC), as an out-of-process relayer would. Its Submit method fits Comet.Submit.
type HTTPSubmitter struct {
	ChainID  string
	Prefix   string
	REST     *cosmosrest.Client
	RPC      *comet.Client
	GasLimit uint64              // default 2,000,000
	Fee      []*basev1beta1.Coin // default none

	mu   sync.Mutex
	keys map[string]*txcodec.PrivKey
	next map[string]uint64 // next sequence per signer, kept across txs in one block
}

// AddKey registers a key the submitter may sign with (looked up by its bech32 address).
func (s *HTTPSubmitter) AddKey(k *txcodec.PrivKey) error {
	a, err := address.Bech32(s.Prefix, k.Address())
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys, s.next = map[string]*txcodec.PrivKey{}, map[string]uint64{}
	}
	s.keys[a] = k
	return nil
}

type baseAccount struct {
	AccountNumber string `json:"account_number"`
	Sequence      string `json:"sequence"`
	BaseAccount   *struct {
		AccountNumber string `json:"account_number"`
		Sequence      string `json:"sequence"`
	} `json:"base_account"`
}

func (s *HTTPSubmitter) account(ctx context.Context, addr string) (num, seq uint64, err error) {
	raw, err := s.REST.Account(ctx, addr)
	if err != nil {
		return 0, 0, err
	}
	var a baseAccount
	if err := json.Unmarshal(raw, &a); err != nil {
		return 0, 0, fmt.Errorf("account %s: %w", addr, err)
	}
	n, sq := a.AccountNumber, a.Sequence
	if a.BaseAccount != nil {
		n, sq = a.BaseAccount.AccountNumber, a.BaseAccount.Sequence
	}
	if num, err = strconv.ParseUint(n, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("account %s number: %w", addr, err)
	}
	if seq, err = strconv.ParseUint(sq, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("account %s sequence: %w", addr, err)
	}
	return num, seq, nil
}

// Submit signs msgs for signer and broadcasts them. A sequence mismatch answer resets the
// local sequence so the next call starts from the chain's.
func (s *HTTPSubmitter) Submit(ctx context.Context, signer string, msgs []proto.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[signer]
	if !ok {
		return fmt.Errorf("no key for %s on %s", signer, s.ChainID)
	}
	num, seq, err := s.account(ctx, signer)
	if err != nil {
		return err
	}
	if n, ok := s.next[signer]; ok && n > seq {
		seq = n
	}
	gas := s.GasLimit
	if gas == 0 {
		gas = 2_000_000
	}
	b := txcodec.Builder{ChainID: s.ChainID, Msgs: msgs, Fee: s.Fee, GasLimit: gas,
		Signers: []txcodec.Signer{{Key: k, AccountNumber: num, Sequence: seq}}}
	raw, err := b.Build()
	if err != nil {
		return err
	}
	res, err := s.RPC.BroadcastTxSync(ctx, raw)
	if err != nil {
		return err
	}
	if res.Code != 0 {
		delete(s.next, signer)
		return fmt.Errorf("broadcast: code %d (%s): %s", res.Code, res.Codespace, res.Log)
	}
	s.next[signer] = seq + 1
	return nil
}
