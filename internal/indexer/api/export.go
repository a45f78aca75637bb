package api

// CSV export of an account's txs and transfers (format=csv, or Accept: text/csv): the whole
// list over the request's filters and time range, oldest first unless pagination.reverse=true,
// read a thousand rows at a time along the list's keyset and written as they are read, so an
// export of any length holds one page in memory. Amounts are the chain's base units as exact
// decimal strings, and the delta also in whole tokens where the registry gives the denom's
// decimals (Config.Decimals). The columns are documented in docs/indexer-api.md ("CSV export").

import (
	"context"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/apierr"
	"github.com/rollgate/rollgate/internal/httpapi"
	"github.com/rollgate/rollgate/internal/store"
)

// exportPage is how many rows an export reads per query.
const exportPage = 1000

// transferColumns and txColumns are the exports' header rows.
var (
	transferColumns = []string{"height", "timestamp", "tx_hash", "msg_index", "kind", "direction", "from", "to", "denom",
		"contract", "token_id", "amount", "delta", "counterparty", "counterparty_address", "decimals", "delta_decimal"}
	txColumns = []string{"height", "timestamp", "tx_hash", "code", "messages", "fee", "gas_wanted", "gas_used", "memo"}
)

// wantsCSV reads the format the request asks for: format=csv or json (the default), else an
// Accept naming text/csv.
func wantsCSV(r *http.Request, q url.Values) (bool, error) {
	switch f := q.Get("format"); f {
	case "csv":
		return true, nil
	case "json":
		return false, nil
	case "":
		return httpapi.WantsCSV(r.Header.Get("Accept")), nil
	default:
		return false, apierr.BadRequest("[INVALID_VALUE] invalid value for format: %s (must be json or csv)", clip(f))
	}
}

// exportOrder is an export's page: every row from the start in the asked order (ascending
// unless pagination.reverse=true), totals not counted.
func exportOrder(q url.Values) store.Page {
	return store.Page{Limit: exportPage, Desc: q.Get("pagination.reverse") == "true"}
}

func csvAnswer(name string, write func(ctx context.Context, w *csv.Writer) error) httpapi.Streamed {
	return httpapi.Streamed{
		ContentType: "text/csv; charset=utf-8",
		Header:      map[string]string{"Content-Disposition": `attachment; filename="` + name + `.csv"`},
		Write: func(ctx context.Context, w io.Writer) error {
			cw := csv.NewWriter(w)
			if err := write(ctx, cw); err != nil {
				return err
			}
			cw.Flush()
			return cw.Error()
		},
	}
}

// exportTransfers streams the account's transfers matching f.
func (s *server) exportTransfers(q url.Values, acc []byte, f store.TransferFilter) httpapi.Streamed {
	p := exportOrder(q)
	tr := s.cfg.Features.Transfers
	return csvAnswer("transfers-"+hex.EncodeToString(acc), func(ctx context.Context, w *csv.Writer) error {
		if err := w.Write(transferColumns); err != nil {
			return err
		}
		row := make([]string, len(transferColumns))
		for {
			page, err := tr.Transfers(ctx, f, p)
			if err != nil {
				return err
			}
			for _, t := range page.Transfers {
				j, err := s.transferItem(t)
				if err != nil {
					return err
				}
				in, out := string(t.To) == string(acc), string(t.From) == string(acc)
				dir, delta := "self", "0"
				switch {
				case in && !out:
					dir, delta = "in", t.Amount
				case out && !in:
					dir, delta = "out", "-"+t.Amount
				}
				if delta == "-0" {
					delta = "0"
				}
				msg := ""
				if j.MsgIndex != nil {
					msg = strconv.Itoa(*j.MsgIndex)
				}
				decimals, scaled := "", ""
				if d, ok := s.decimals(t); ok {
					decimals, scaled = strconv.Itoa(d), scaleDecimal(delta, d)
				}
				row = append(row[:0], strconv.FormatInt(j.Height, 10), j.Timestamp, j.TxHash, msg, j.Kind, dir, orEmpty(j.From),
					orEmpty(j.To), j.Denom, orEmpty(j.Contract), orEmpty(j.TokenID), j.Amount, delta, orEmpty(j.Counterparty),
					orEmpty(j.CounterpartyAddr), decimals, scaled)
				if err := w.Write(row); err != nil {
					return err
				}
			}
			w.Flush()
			if err := w.Error(); err != nil {
				return err
			}
			if len(page.Transfers) < p.Limit {
				return nil
			}
			p.After = store.Cursor{Kind: store.CursorSequence, Value: page.Transfers[len(page.Transfers)-1].ID}
		}
	})
}

// decimals is the registry's decimals of a transfer's denom; never for an NFT (its amount
// counts tokens).
func (s *server) decimals(t store.TransferRecord) (int, bool) {
	if s.cfg.Decimals == nil || t.TokenID != "" || t.Kind == store.TransferERC721 || t.Kind == store.TransferCW721 || t.Kind == store.TransferMoveNFT {
		return 0, false
	}
	d, ok := s.cfg.Decimals(t.Denom)
	if !ok || d < 0 || d > 36 {
		return 0, false
	}
	return d, true
}

// scaleDecimal is the exact decimal of an integer string of base units in tokens of d
// decimals: every digit kept ("-1500", 6 → "-0.001500"), so a column sums exactly.
func scaleDecimal(v string, d int) string {
	sign := ""
	if strings.HasPrefix(v, "-") {
		sign, v = "-", v[1:]
	}
	if d == 0 {
		return sign + v
	}
	if len(v) <= d {
		v = strings.Repeat("0", d-len(v)+1) + v
	}
	return sign + v[:len(v)-d] + "." + v[len(v)-d:]
}

// exportTx is what a tx row of the export reads of the stored tx JSON.
type exportTx struct {
	TxHash    string `json:"txhash"`
	Code      int64  `json:"code"`
	GasWanted string `json:"gas_wanted"`
	GasUsed   string `json:"gas_used"`
	Timestamp string `json:"timestamp"`
	Tx        struct {
		Body struct {
			Memo     string `json:"memo"`
			Messages []struct {
				Type string `json:"@type"`
			} `json:"messages"`
		} `json:"body"`
		AuthInfo struct {
			Fee struct {
				Amount []struct {
					Denom  string `json:"denom"`
					Amount string `json:"amount"`
				} `json:"amount"`
			} `json:"fee"`
		} `json:"auth_info"`
	} `json:"tx"`
}

// exportTxs streams the account's txs matching f: messages are the type URLs joined by ';',
// the fee its coins as the SDK writes them (10uinit,5uusdc).
func (s *server) exportTxs(q url.Values, acc []byte, f store.TxFilter) httpapi.Streamed {
	p := exportOrder(q)
	return csvAnswer("txs-"+hex.EncodeToString(acc), func(ctx context.Context, w *csv.Writer) error {
		if err := w.Write(txColumns); err != nil {
			return err
		}
		row := make([]string, len(txColumns))
		var msgs, fee strings.Builder
		for {
			page, err := s.store.Txs(ctx, f, p)
			if err != nil {
				return err
			}
			for _, t := range page.Txs {
				var x exportTx
				if err := json.Unmarshal(t.JSON, &x); err != nil {
					return err
				}
				msgs.Reset()
				for i, m := range x.Tx.Body.Messages {
					if i > 0 {
						msgs.WriteByte(';')
					}
					msgs.WriteString(m.Type)
				}
				fee.Reset()
				for i, c := range x.Tx.AuthInfo.Fee.Amount {
					if i > 0 {
						fee.WriteByte(',')
					}
					fee.WriteString(c.Amount + c.Denom)
				}
				ts := x.Timestamp
				if tm, err := time.Parse(time.RFC3339Nano, ts); err == nil {
					ts = tm.UTC().Format(time.RFC3339Nano)
				}
				row = append(row[:0], strconv.FormatInt(t.Height, 10), ts, x.TxHash, strconv.FormatInt(x.Code, 10), msgs.String(),
					fee.String(), x.GasWanted, x.GasUsed, x.Tx.Body.Memo)
				if err := w.Write(row); err != nil {
					return err
				}
			}
			w.Flush()
			if err := w.Error(); err != nil {
				return err
			}
			if len(page.Txs) < p.Limit {
				return nil
			}
			p.After = store.Cursor{Kind: store.CursorSequence, Value: page.Txs[len(page.Txs)-1].Sequence}
		}
	})
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
