package track

// Overall states (Skip's TransactionState) and the coarse status the contract adds.
const (
	StateSubmitted        = "STATE_SUBMITTED"
	StatePending          = "STATE_PENDING"
	StatePendingError     = "STATE_PENDING_ERROR"
	StateCompletedSuccess = "STATE_COMPLETED_SUCCESS"
	StateCompletedError   = "STATE_COMPLETED_ERROR"
	StateAbandoned        = "STATE_ABANDONED"

	// StatusCompleted is the status of every terminal outcome; the outcome is in state.
	StatusCompleted = "STATE_COMPLETED"
)

// Per-hop states: IBC (Skip's TransferState) and OPinit (Skip's OPInitTransferState).
const (
	TransferUnknown  = "TRANSFER_UNKNOWN"
	TransferPending  = "TRANSFER_PENDING"
	TransferReceived = "TRANSFER_RECEIVED"
	TransferSuccess  = "TRANSFER_SUCCESS"
	TransferFailure  = "TRANSFER_FAILURE"

	OPInitUnknown  = "OPINIT_TRANSFER_UNKNOWN"
	OPInitSent     = "OPINIT_TRANSFER_SENT"
	OPInitReceived = "OPINIT_TRANSFER_RECEIVED"
)

// Withdrawal stages of an L2 → L1 OPinit hop (rollgate extension `withdrawal.state`; the hop's
// Skip `state` stays OPINIT_TRANSFER_SENT until the claim, then OPINIT_TRANSFER_RECEIVED).
const (
	WithdrawalWaitingOutput      = "OPINIT_WITHDRAWAL_WAITING_FOR_OUTPUT"
	WithdrawalFinalizationPeriod = "OPINIT_WITHDRAWAL_FINALIZATION_PERIOD"
	WithdrawalClaimable          = "OPINIT_WITHDRAWAL_CLAIMABLE"
	WithdrawalClaimed            = "OPINIT_WITHDRAWAL_CLAIMED"
)

// Error types.
const (
	PacketErrorAck     = "PACKET_ERROR_ACKNOWLEDGEMENT"
	PacketErrorTimeout = "PACKET_ERROR_TIMEOUT"

	StatusErrorExecution = "STATUS_ERROR_TRANSACTION_EXECUTION"
	StatusErrorTransfer  = "STATUS_ERROR_TRANSFER"
	// StatusErrorIndexing: the tracker cannot read what the transfer waits for (its tx was
	// not seen in time, or a chain it waits on is halted on a chain mismatch).
	StatusErrorIndexing = "STATUS_ERROR_INDEXING"
)

// StatusOf maps a detailed state to the contract's coarse status: STATE_COMPLETED for every
// terminal state, success or not. status only says whether polling may stop; the outcome is
// state (and transfers[0].state). A separate failed status would keep InterwovenKit polling
// forever: it stops only on status === "STATE_COMPLETED" and reads success or failure from
// state (initia-labs/interwovenkit@913e480:packages/interwovenkit-react/src/pages/bridge/data/tx.ts
// refetchInterval; pages/bridge/BridgeHistoryItemIcon.tsx), while initia.js v2 and Skip's
// client read state only (initia-labs/initia.js@a60dc6b:src/bridge/types.ts;
// skip-mev/skip-go@fa6095e:packages/client/src/public-functions/waitForTransaction.ts).
func StatusOf(state string) string {
	switch {
	case Terminal(state):
		return StatusCompleted
	case state == StatePendingError:
		return StatePending
	}
	return state
}

// Terminal reports whether a detailed state is final.
func Terminal(state string) bool {
	return state == StateCompletedSuccess || state == StateCompletedError || state == StateAbandoned
}

// ChainTx is Skip's ChainTransaction.
type ChainTx struct {
	ChainID      string `json:"chain_id"`
	TxHash       string `json:"tx_hash"`
	ExplorerLink string `json:"explorer_link"`
	OnChainAt    string `json:"on_chain_at"`
}

// PacketError is Skip's PacketError.
type PacketError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Packet is Skip's Packet (the txs of one IBC hop); absent txs are null.
type Packet struct {
	SendTx        *ChainTx     `json:"send_tx"`
	ReceiveTx     *ChainTx     `json:"receive_tx"`
	AcknowledgeTx *ChainTx     `json:"acknowledge_tx"`
	TimeoutTx     *ChainTx     `json:"timeout_tx"`
	Error         *PacketError `json:"error"`
}

// IBCTransferInfo is one IBC hop.
type IBCTransferInfo struct {
	FromChainID string `json:"from_chain_id"`
	ToChainID   string `json:"to_chain_id"`
	SrcChainID  string `json:"src_chain_id"`
	DstChainID  string `json:"dst_chain_id"`
	State       string `json:"state"`
	PacketTxs   Packet `json:"packet_txs"`
}

// OPInitTxs is Skip's OPInitTransferTxs.
type OPInitTxs struct {
	SendTx    *ChainTx `json:"send_tx"`
	ReceiveTx *ChainTx `json:"receive_tx"`
}

// Withdrawal is rollgate's view of an L2 → L1 withdrawal between its L2 tx and the L1 claim.
type Withdrawal struct {
	State       string `json:"state"`
	BridgeID    string `json:"bridge_id"`
	L2Sequence  string `json:"l2_sequence"`
	OutputIndex string `json:"output_index,omitempty"`
	// ClaimableAt is when the output's finalization period ends (RFC 3339).
	ClaimableAt string `json:"claimable_at,omitempty"`
	// ExecutorURL is where the claim's proof is served (`/withdrawal/{sequence}`).
	ExecutorURL string `json:"executor_url,omitempty"`
}

// OPInitTransferInfo is one OPinit hop (deposit or withdrawal).
type OPInitTransferInfo struct {
	FromChainID string      `json:"from_chain_id"`
	ToChainID   string      `json:"to_chain_id"`
	State       string      `json:"state"`
	Txs         OPInitTxs   `json:"txs"`
	Withdrawal  *Withdrawal `json:"withdrawal,omitempty"`
	// Error is set when the deposit arrived but its hook failed, or the deposit itself failed
	// (rollgate extension; Skip's OPinit hop has no error field).
	Error *string `json:"error,omitempty"`
}

// TransferEvent is one entry of transfer_sequence (exactly one member set).
type TransferEvent struct {
	IBCTransfer       *IBCTransferInfo       `json:"ibc_transfer,omitempty"`
	OPInitTransfer    *OPInitTransferInfo    `json:"op_init_transfer,omitempty"`
	LayerZeroTransfer *LayerZeroTransferInfo `json:"layer_zero_transfer,omitempty"`
}

// HopStatus is a transfer_sequence entry normalized: what a progress line shows of it.
type HopStatus struct {
	Bridge                 string // "ibc", "opinit", "layerzero"; "" for an entry without a member
	FromChainID, ToChainID string
	State                  string
	// Txs are the hop's txs in the order they happen (nil: not yet).
	Txs        []*ChainTx
	Error      string
	Withdrawal *Withdrawal // an OPinit withdrawal's claim
}

// Hop is the entry normalized: the one place its members are read.
func (t TransferEvent) Hop() HopStatus {
	if x := t.IBCTransfer; x != nil {
		h := HopStatus{Bridge: "ibc", FromChainID: x.FromChainID, ToChainID: x.ToChainID, State: x.State,
			Txs: []*ChainTx{x.PacketTxs.SendTx, x.PacketTxs.ReceiveTx, x.PacketTxs.AcknowledgeTx, x.PacketTxs.TimeoutTx}}
		if x.PacketTxs.Error != nil {
			h.Error = x.PacketTxs.Error.Message
		}
		return h
	}
	if x := t.OPInitTransfer; x != nil {
		h := HopStatus{Bridge: "opinit", FromChainID: x.FromChainID, ToChainID: x.ToChainID, State: x.State,
			Txs: []*ChainTx{x.Txs.SendTx, x.Txs.ReceiveTx}, Withdrawal: x.Withdrawal}
		if x.Error != nil {
			h.Error = *x.Error
		}
		return h
	}
	if x := t.LayerZeroTransfer; x != nil {
		return x.hop()
	}
	return HopStatus{}
}

// settled reports whether the hop is over: an IBC packet acknowledged or failed, an OPinit
// transfer received.
func (t TransferEvent) settled() bool {
	switch h := t.Hop(); h.Bridge {
	case "ibc":
		return h.State == TransferSuccess || h.State == TransferFailure
	case "opinit":
		return h.State == OPInitReceived
	case "layerzero":
		return h.State == LZReceived || h.State == LZFailed
	}
	return true
}

// NextBlocking points at the hop a transfer waits on.
type NextBlocking struct {
	TransferSequenceIndex int `json:"transfer_sequence_index"`
}

// AssetRelease says where the funds are.
type AssetRelease struct {
	ChainID  string  `json:"chain_id"`
	Denom    string  `json:"denom"`
	Amount   *string `json:"amount"`
	Released bool    `json:"released"`
}

// ErrorDetails is Skip's TransactionExecutionErrorDetails.
type ErrorDetails struct {
	Code    uint32 `json:"code"`
	Message string `json:"message"`
}

// StatusError is Skip's StatusError.
type StatusError struct {
	Type    string        `json:"type"`
	Message string        `json:"message"`
	Details *ErrorDetails `json:"details,omitempty"`
}

// TransferStatus is one transfer started by the tracked tx.
type TransferStatus struct {
	State                string          `json:"state"`
	TransferSequence     []TransferEvent `json:"transfer_sequence"`
	NextBlockingTransfer *NextBlocking   `json:"next_blocking_transfer"`
	TransferAssetRelease *AssetRelease   `json:"transfer_asset_release,omitempty"`
	// Error is omitted rather than null: Skip's schema puts nullable beside a $ref here, which
	// OpenAPI 3.0 ignores, so a strict validator rejects null.
	Error *StatusError `json:"error,omitempty"`
}

// StatusResponse is the /v2/tx/status answer.
type StatusResponse struct {
	Transfers            []TransferStatus `json:"transfers"`
	State                string           `json:"state"`
	Status               string           `json:"status"`
	NextBlockingTransfer *NextBlocking    `json:"next_blocking_transfer"`
	TransferAssetRelease *AssetRelease    `json:"transfer_asset_release,omitempty"`
	Error                *StatusError     `json:"error"`
	TransferSequence     []TransferEvent  `json:"transfer_sequence"`
}

// TrackResponse is the /v2/tx/track and /v2/tx/submit answer.
type TrackResponse struct {
	TxHash       string `json:"tx_hash"`
	ExplorerLink string `json:"explorer_link"`
}

func submitted() StatusResponse {
	return StatusResponse{Transfers: []TransferStatus{}, State: StateSubmitted, Status: StatusOf(StateSubmitted), TransferSequence: []TransferEvent{}}
}
