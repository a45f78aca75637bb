package client

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	basev1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/base/v1beta1"
	ophostv1 "github.com/rollgate/rollgate/internal/chain/protos/opinit/ophost/v1"
)

// ExecutorWithdrawal is a rollup executor's answer for one OPinit withdrawal: GET
// /withdrawal/{sequence}, and each item of GET /withdrawals/{address}. It carries what the L1
// claim needs (the proofs, the output that commits to them and that output's roots).
type ExecutorWithdrawal struct {
	Sequence         uint64 `json:"sequence"`
	To               string `json:"to"`
	From             string `json:"from"`
	Amount           struct{ Denom, Amount string }
	OutputIndex      uint64   `json:"output_index"`
	BridgeID         uint64   `json:"bridge_id"`
	WithdrawalProofs [][]byte `json:"withdrawal_proofs"`
	Version          []byte   `json:"version"`
	StorageRoot      []byte   `json:"storage_root"`
	LastBlockHash    []byte   `json:"last_block_hash"`
}

// Withdrawal asks the executor at executorURL for the withdrawal of L2 sequence sequence. An
// answer for another sequence is an error: claiming it would claim someone else's withdrawal.
func Withdrawal(ctx context.Context, executorURL, sequence string) (*ExecutorWithdrawal, error) {
	var x ExecutorWithdrawal
	if err := GetJSON(ctx, strings.TrimRight(executorURL, "/")+"/withdrawal/"+sequence, &x); err != nil {
		return nil, fmt.Errorf("withdrawal proof: %w", err)
	}
	if strconv.FormatUint(x.Sequence, 10) != sequence {
		return nil, fmt.Errorf("withdrawal proof: the executor answered sequence %d for %s", x.Sequence, sequence)
	}
	return &x, nil
}

// Claim is the L1 claim of the withdrawal, MsgFinalizeTokenWithdrawal, sent by sender: anyone
// may claim, the funds go to the withdrawal's recipient.
func (x *ExecutorWithdrawal) Claim(sender string) *ophostv1.MsgFinalizeTokenWithdrawal {
	return &ophostv1.MsgFinalizeTokenWithdrawal{Sender: sender, BridgeId: x.BridgeID, OutputIndex: x.OutputIndex,
		WithdrawalProofs: x.WithdrawalProofs, From: x.From, To: x.To, Sequence: x.Sequence,
		Amount: &basev1beta1.Coin{Denom: x.Amount.Denom, Amount: x.Amount.Amount}, Version: x.Version,
		StorageRoot: x.StorageRoot, LastBlockHash: x.LastBlockHash}
}
