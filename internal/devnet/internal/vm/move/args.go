package move

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// args gives typed access to the arguments of an entry function call, whether they came BCS
// encoded (MsgExecute) or as JSON strings (MsgExecuteJSON).
type args interface {
	n() int
	str(i int) (string, error)
	addr(i int) (Addr, error)
	u64(i int) (uint64, error)
	u8(i int) (uint8, error)
	u16(i int) (uint16, error)
	u32(i int) (uint32, error)
	bytes(i int) ([]byte, error) // vector<u8>
	boolean(i int) (bool, error)
	optU64(i int) (*uint64, error)
	optU128(i int) (*big.Int, error)
	optAddr(i int) (*Addr, error)
	strVec(i int) ([]string, error)
	bytesVec(i int) ([][]byte, error)
	decimal(i int) (string, error) // BigDecimal as a decimal string
}

var errArg = errors.New("invalid argument")

// ---- BCS ----

type bcsArgs [][]byte

type bcsReader struct {
	b   []byte
	err error
}

func (r *bcsReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errArg
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *bcsReader) uleb() int {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		b := r.take(1)
		if b == nil {
			return 0
		}
		v |= uint64(b[0]&0x7f) << shift
		if b[0]&0x80 == 0 {
			if v > 1<<24 {
				r.err = errArg
				return 0
			}
			return int(v)
		}
	}
	r.err = errArg
	return 0
}

func (r *bcsReader) bytes() []byte { return r.take(r.uleb()) }

func (r *bcsReader) done() error {
	if r.err != nil {
		return r.err
	}
	if len(r.b) != 0 {
		return errArg
	}
	return nil
}

func (a bcsArgs) n() int { return len(a) }

func (a bcsArgs) reader(i int) (*bcsReader, error) {
	if i >= len(a) {
		return nil, fmt.Errorf("%w: missing argument %d", errArg, i)
	}
	return &bcsReader{b: a[i]}, nil
}

func (a bcsArgs) str(i int) (string, error) {
	r, err := a.reader(i)
	if err != nil {
		return "", err
	}
	s := string(r.bytes())
	return s, r.done()
}

// fixed reads argument i as exactly n bytes: a number of n bytes or an address.
func (a bcsArgs) fixed(i, n int) ([]byte, error) {
	r, err := a.reader(i)
	if err != nil {
		return nil, err
	}
	b := r.take(n)
	return b, r.done()
}

func (a bcsArgs) addr(i int) (Addr, error) {
	b, err := a.fixed(i, 32)
	var out Addr
	copy(out[:], b)
	return out, err
}

func (a bcsArgs) u64(i int) (uint64, error) {
	b, err := a.fixed(i, 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (a bcsArgs) u8(i int) (uint8, error) {
	b, err := a.fixed(i, 1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (a bcsArgs) u16(i int) (uint16, error) {
	b, err := a.fixed(i, 2)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

func (a bcsArgs) u32(i int) (uint32, error) {
	b, err := a.fixed(i, 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (a bcsArgs) bytes(i int) ([]byte, error) {
	r, err := a.reader(i)
	if err != nil {
		return nil, err
	}
	b := r.bytes()
	return append([]byte(nil), b...), r.done()
}

func (a bcsArgs) boolean(i int) (bool, error) {
	v, err := a.u8(i)
	if err != nil || v > 1 {
		return false, errArg
	}
	return v == 1, nil
}

func (a bcsArgs) option(i int) (*bcsReader, bool, error) {
	r, err := a.reader(i)
	if err != nil {
		return nil, false, err
	}
	tag := r.take(1)
	if r.err != nil {
		return nil, false, r.err
	}
	switch tag[0] {
	case 0:
		return r, false, r.done()
	case 1:
		return r, true, nil
	}
	return nil, false, errArg
}

// optFixed reads argument i as an option of exactly n bytes; nil bytes for none.
func (a bcsArgs) optFixed(i, n int) ([]byte, error) {
	r, some, err := a.option(i)
	if err != nil || !some {
		return nil, err
	}
	b := r.take(n)
	if err := r.done(); err != nil {
		return nil, err
	}
	return b, nil
}

func (a bcsArgs) optU64(i int) (*uint64, error) {
	b, err := a.optFixed(i, 8)
	if b == nil {
		return nil, err
	}
	v := binary.LittleEndian.Uint64(b)
	return &v, nil
}

func (a bcsArgs) optU128(i int) (*big.Int, error) {
	b, err := a.optFixed(i, 16)
	if b == nil {
		return nil, err
	}
	return leInt(b), nil
}

func (a bcsArgs) optAddr(i int) (*Addr, error) {
	b, err := a.optFixed(i, 32)
	if b == nil {
		return nil, err
	}
	var out Addr
	copy(out[:], b)
	return &out, nil
}

func (a bcsArgs) strVec(i int) ([]string, error) {
	bs, err := a.bytesVec(i)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(bs))
	for j, b := range bs {
		out[j] = string(b)
	}
	return out, nil
}

func (a bcsArgs) bytesVec(i int) ([][]byte, error) {
	r, err := a.reader(i)
	if err != nil {
		return nil, err
	}
	n := r.uleb()
	out := make([][]byte, 0, min(n, 1024))
	for j := 0; j < n && r.err == nil; j++ {
		out = append(out, r.bytes())
	}
	return out, r.done()
}

func (a bcsArgs) decimal(i int) (string, error) {
	r, err := a.reader(i)
	if err != nil {
		return "", err
	}
	b := r.bytes()
	if err := r.done(); err != nil {
		return "", err
	}
	return formatDecimal(leInt(b)), nil
}

func leInt(b []byte) *big.Int {
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	return new(big.Int).SetBytes(be)
}

var decimalScale = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// formatDecimal prints a BigDecimal (value scaled by 1e18) as Move's JSON does: "0.05", "0".
func formatDecimal(scaled *big.Int) string {
	q, r := new(big.Int).QuoRem(scaled, decimalScale, new(big.Int))
	if r.Sign() == 0 {
		return q.String()
	}
	frac := strings.TrimRight(fmt.Sprintf("%018s", r.String()), "0")
	return q.String() + "." + frac
}

// parseDecimal is the inverse of formatDecimal.
func parseDecimal(s string) (*big.Int, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 18 {
		return nil, errArg
	}
	v, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", 18-len(frac)), 10)
	if !ok || v.Sign() < 0 {
		return nil, errArg
	}
	return v, nil
}

// decimalBCS encodes a BigDecimal: the scaled value as little-endian bytes in a vector<u8>.
func decimalBytes(scaled *big.Int) []byte {
	be := scaled.Bytes()
	if len(be) == 0 {
		be = []byte{0}
	}
	le := make([]byte, len(be))
	for i := range be {
		le[len(be)-1-i] = be[i]
	}
	return le
}

// ---- JSON (MsgExecuteJSON: each argument is a JSON value in a string) ----

type jsonArgs []string

func (a jsonArgs) n() int { return len(a) }

func (a jsonArgs) val(i int, out any) error {
	if i >= len(a) {
		return fmt.Errorf("%w: missing argument %d", errArg, i)
	}
	if err := json.Unmarshal([]byte(a[i]), out); err != nil {
		return fmt.Errorf("%w: %w", errArg, err)
	}
	return nil
}

func (a jsonArgs) str(i int) (string, error) {
	var s string
	return s, a.val(i, &s)
}

func (a jsonArgs) addr(i int) (Addr, error) {
	s, err := a.str(i)
	if err != nil {
		return Addr{}, err
	}
	return ParseAddr(s)
}

// uint reads argument i as an unsigned number of the given bits.
func (a jsonArgs) uint(i, bits int) (uint64, error) {
	var raw json.RawMessage
	if err := a.val(i, &raw); err != nil {
		return 0, err
	}
	return parseUint(raw, bits)
}

func (a jsonArgs) u64(i int) (uint64, error) { return a.uint(i, 64) }

func parseUint(raw json.RawMessage, bits int) (uint64, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	v, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return 0, errArg
	}
	return v, nil
}

func (a jsonArgs) u16(i int) (uint16, error) {
	v, err := a.uint(i, 16)
	return uint16(v), err
}

func (a jsonArgs) u32(i int) (uint32, error) {
	v, err := a.uint(i, 32)
	return uint32(v), err
}

// bytes reads a vector<u8>, which Move JSON writes as a 0x-prefixed hex string.
func (a jsonArgs) bytes(i int) ([]byte, error) {
	s, err := a.str(i)
	if err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errArg, err)
	}
	return b, nil
}

func (a jsonArgs) u8(i int) (uint8, error) {
	v, err := a.uint(i, 8)
	return uint8(v), err
}

func (a jsonArgs) boolean(i int) (bool, error) {
	var b bool
	return b, a.val(i, &b)
}

func (a jsonArgs) isNull(i int) bool { return i < len(a) && strings.TrimSpace(a[i]) == "null" }

func (a jsonArgs) optU64(i int) (*uint64, error) {
	if a.isNull(i) {
		return nil, nil
	}
	v, err := a.u64(i)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func (a jsonArgs) optU128(i int) (*big.Int, error) {
	if a.isNull(i) {
		return nil, nil
	}
	var raw json.RawMessage
	if err := a.val(i, &raw); err != nil {
		return nil, err
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 {
		return nil, errArg
	}
	return v, nil
}

func (a jsonArgs) optAddr(i int) (*Addr, error) {
	if a.isNull(i) {
		return nil, nil
	}
	v, err := a.addr(i)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func (a jsonArgs) strVec(i int) ([]string, error) {
	var v []string
	return v, a.val(i, &v)
}

func (a jsonArgs) bytesVec(i int) ([][]byte, error) {
	var v []string
	if err := a.val(i, &v); err != nil {
		return nil, err
	}
	out := make([][]byte, len(v))
	for j, s := range v {
		b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
		if err != nil {
			return nil, errArg
		}
		out[j] = b
	}
	return out, nil
}

func (a jsonArgs) decimal(i int) (string, error) {
	s, err := a.str(i)
	if err != nil {
		return "", err
	}
	v, err := parseDecimal(s)
	if err != nil {
		return "", err
	}
	return formatDecimal(v), nil
}

// ---- BCS encoding (resources' raw_bytes and the traffic generator's arguments) ----

type bcsWriter struct{ b []byte }

func (w *bcsWriter) uleb(n int) {
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			w.b = append(w.b, c|0x80)
			continue
		}
		w.b = append(w.b, c)
		return
	}
}
func (w *bcsWriter) bytes(b []byte) { w.uleb(len(b)); w.b = append(w.b, b...) }
func (w *bcsWriter) str(s string)   { w.bytes([]byte(s)) }
func (w *bcsWriter) addr(a Addr)    { w.b = append(w.b, a[:]...) }
func (w *bcsWriter) u8(v uint8)     { w.b = append(w.b, v) }
func (w *bcsWriter) boolean(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}
func (w *bcsWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }

func bcsStr(s string) []byte { var w bcsWriter; w.str(s); return w.b }
func bcsAddr(a Addr) []byte  { var w bcsWriter; w.addr(a); return w.b }
func bcsU64(v uint64) []byte { var w bcsWriter; w.u64(v); return w.b }
func bcsU8(v uint8) []byte   { return []byte{v} }
func bcsBool(v bool) []byte  { var w bcsWriter; w.boolean(v); return w.b }
func bcsNone() []byte        { return []byte{0} }
func bcsSomeU64(v uint64) []byte {
	return append([]byte{1}, bcsU64(v)...)
}
func bcsSomeAddr(a Addr) []byte { return append([]byte{1}, a[:]...) }
func bcsEmptyVec() []byte       { return []byte{0} }
func bcsDecimal(s string) []byte {
	v, err := parseDecimal(s)
	if err != nil {
		v = new(big.Int)
	}
	var w bcsWriter
	w.bytes(decimalBytes(v))
	return w.b
}
