package txcodec

import (
	"errors"

	txv1beta1 "github.com/rollgate/rollgate/internal/chain/protos/cosmos/tx/v1beta1"
)

// AminoSignBytes is the SIGN_MODE_LEGACY_AMINO_JSON payload.
func AminoSignBytes(chainID string, accountNumber, sequence uint64, body *txv1beta1.TxBody, fee *txv1beta1.Fee) ([]byte, error) {
	return nil, errors.New("not yet")
}
