package engine

import "github.com/rollgate/rollgate/internal/devnet/internal/sim"

// ABCI error codes the engine answers with: the Cosmos SDK's registered errors (types/errors,
// codespace "sdk"), x/bank's, and baseapp's codes in codespace "undefined", so a client that
// switches on (codespace, code) sees what a real node sends.
const (
	codespaceSDK       = "sdk"
	codespaceBank      = "bank"
	codespaceUndefined = "undefined"

	codeInternal          uint32 = 1      // undefined: an error that is not an ABCI error
	codeTxDecode          uint32 = 2      // ErrTxDecode
	codeUnauthorized      uint32 = 4      // ErrUnauthorized
	codeInsufficientFunds uint32 = 5      // ErrInsufficientFunds
	codeUnknownRequest    uint32 = 6      // ErrUnknownRequest
	codeInvalidAddress    uint32 = 7      // ErrInvalidAddress
	codeInvalidPubKey     uint32 = 8      // ErrInvalidPubKey
	codeUnknownAddress    uint32 = 9      // ErrUnknownAddress
	codeInvalidCoins      uint32 = 10     // ErrInvalidCoins
	codeOutOfGas          uint32 = 11     // ErrOutOfGas
	codeInsufficientFee   uint32 = 13     // ErrInsufficientFee
	codeTxInMempoolCache  uint32 = 19     // ErrTxInMempoolCache
	codeTxTimeoutHeight   uint32 = 30     // ErrTxTimeoutHeight
	codeWrongSequence     uint32 = 32     // ErrWrongSequence
	codePanic             uint32 = 111222 // undefined: baseapp's recovered panic

	codeBankMultipleSenders uint32 = 7 // bank: a MsgMultiSend with more than one input
)

// sdkErr is an error of the SDK's own codespace.
func sdkErr(code uint32, log string) *sim.CodedError {
	return &sim.CodedError{Codespace: codespaceSDK, Code: code, Log: log}
}
