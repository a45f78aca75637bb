package ibc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rollgate/rollgate/internal/chain/vmkind"
)

// ForwardMetadata is the packet-forward-middleware memo object under "forward".
type ForwardMetadata struct {
	Receiver string
	Port     string
	Channel  string
	// Timeout is zero when absent or not positive (the middleware default applies).
	Timeout time.Duration
	// Retries is nil when absent (the middleware default applies).
	Retries *uint8
	// Next is the memo of the next hop ("" when absent), compact JSON with the
	// object's key order preserved.
	Next string
}

type forwardJSON struct {
	Receiver string          `json:"receiver"`
	Port     string          `json:"port"`
	Channel  string          `json:"channel"`
	Timeout  json.RawMessage `json:"timeout,omitempty"`
	Retries  *uint8          `json:"retries,omitempty"`
	Next     json.RawMessage `json:"next,omitempty"`
}

// ParseForward reports whether memo routes the packet through the packet-forward
// middleware (a JSON object with a non-null "forward" key) and, if so, decodes it.
// A memo that is not a JSON object or has no "forward" key is not a forward (ok false,
// err nil), exactly as the middleware passes it through; malformed metadata is an error
// (the middleware answers with an error acknowledgement).
func ParseForward(memo string) (*ForwardMetadata, bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(memo), &top); err != nil {
		return nil, false, nil
	}
	raw, ok := top["forward"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, false, nil
	}
	var fj forwardJSON
	if err := json.Unmarshal(raw, &fj); err != nil {
		return nil, true, fmt.Errorf("error parsing forward metadata: %w", err)
	}
	fm := &ForwardMetadata{Receiver: fj.Receiver, Port: fj.Port, Channel: fj.Channel, Retries: fj.Retries}
	if len(fj.Timeout) > 0 {
		d, err := parseTimeout(fj.Timeout)
		if err != nil {
			return nil, true, fmt.Errorf("error parsing forward metadata: %w", err)
		}
		fm.Timeout = d
	}
	if len(fj.Next) > 0 && !bytes.Equal(bytes.TrimSpace(fj.Next), []byte("null")) {
		next, err := parseNext(fj.Next)
		if err != nil {
			return nil, true, fmt.Errorf("error parsing forward metadata: %w", err)
		}
		fm.Next = next
	}
	if err := fm.Validate(); err != nil {
		return nil, true, err
	}
	return fm, true, nil
}

// parseTimeout accepts a Go duration string ("10m") or a number of nanoseconds.
func parseTimeout(raw json.RawMessage) (time.Duration, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("invalid timeout %q: %w", s, err)
		}
		return d, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, fmt.Errorf("invalid timeout %s", raw)
	}
	if f > math.MaxInt64 || f < math.MinInt64 {
		return 0, fmt.Errorf("invalid timeout %s", raw)
	}
	return time.Duration(int64(f)), nil
}

// parseNext accepts a JSON object (kept in its key order) or a string holding JSON.
func parseNext(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			return "", fmt.Errorf("next is not a JSON object: %w", err)
		}
		return compact([]byte(s))
	}
	if len(raw) == 0 || raw[0] != '{' {
		return "", errors.New("next must be a JSON object or a string holding one")
	}
	return compact(raw)
}

func compact(b []byte) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// Validate is ForwardMetadata.Validate.
func (f *ForwardMetadata) Validate() error {
	if f.Receiver == "" {
		return errors.New("failed to validate metadata: receiver cannot be empty")
	}
	if !validIdentifier(f.Port, 2, 128) {
		return fmt.Errorf("failed to validate metadata: invalid port %q", f.Port)
	}
	if !validIdentifier(f.Channel, 8, 64) {
		return fmt.Errorf("failed to validate metadata: invalid channel %q", f.Channel)
	}
	return nil
}

// validIdentifier is ICS-24's identifier check: length bounds and [a-zA-Z0-9.\_+\-#[]<>].
func validIdentifier(id string, min, max int) bool {
	if len(id) < min || len(id) > max || strings.TrimSpace(id) == "" {
		return false
	}
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("._+-#[]<>", c):
		default:
			return false
		}
	}
	return true
}

// HookMemo is an Initia ibc-hooks memo routed to one VM.
type HookMemo struct {
	VM            vmkind.Kind
	Message       json.RawMessage
	AsyncCallback json.RawMessage
}

type hookJSON struct {
	Message       json.RawMessage `json:"message,omitempty"`
	MessageJSON   json.RawMessage `json:"message_json,omitempty"` // Move only: JSON-string args
	AsyncCallback json.RawMessage `json:"async_callback,omitempty"`
}

// ParseHook reports whether memo is routed to the hook of vm ("move", "evm", "wasm"):
// a JSON object with that key whose value carries a "message". Move and Wasm decode the
// hook object strictly (unknown fields are an error), EVM leniently.
func ParseHook(vm vmkind.Kind, memo string) (*HookMemo, bool, error) {
	if vm == "" {
		return nil, false, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(memo), &top); err != nil {
		return nil, false, nil
	}
	raw, ok := top[vm.String()]
	if !ok {
		return nil, false, nil
	}
	var hj hookJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	if vm != vmkind.EVM {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&hj); err != nil {
		return nil, true, fmt.Errorf("failed to unmarshal hook data: %w", err)
	}
	present := func(r json.RawMessage) bool { return len(r) > 0 && !bytes.Equal(bytes.TrimSpace(r), []byte("null")) }
	if vm == vmkind.Move && present(hj.MessageJSON) {
		if present(hj.Message) {
			return nil, true, errors.New("only one of message or message_json may be set")
		}
		// handed to the executor wrapped, so it knows the args are JSON strings
		wrapped, _ := json.Marshal(map[string]json.RawMessage{"message_json": hj.MessageJSON})
		return &HookMemo{VM: vm, Message: wrapped, AsyncCallback: hj.AsyncCallback}, true, nil
	}
	if !present(hj.Message) {
		return nil, false, nil
	}
	return &HookMemo{VM: vm, Message: hj.Message, AsyncCallback: hj.AsyncCallback}, true, nil
}

// MoveMessage is the Move function call of a move hook (message or message_json).
func (h *HookMemo) MoveMessage() json.RawMessage {
	var w struct {
		MessageJSON json.RawMessage `json:"message_json"`
	}
	if json.Unmarshal(h.Message, &w) == nil && len(w.MessageJSON) > 0 {
		return w.MessageJSON
	}
	return h.Message
}

// ValidateReceiver applies the VM's receiver rule: Move wants
// "<module_address>::<module_name>::<function_name>" (or the bech32 of its SHA-256,
// checked by the caller through receiverHash), EVM the exact contract_addr, Wasm the
// exact contract.
func (h *HookMemo) ValidateReceiver(receiver string, moveHashBech32 func(string) string) error {
	switch h.VM {
	case vmkind.Move:
		var m struct {
			ModuleAddress string `json:"module_address"`
			ModuleName    string `json:"module_name"`
			FunctionName  string `json:"function_name"`
		}
		if err := json.Unmarshal(h.MoveMessage(), &m); err != nil {
			return fmt.Errorf("invalid move hook message: %w", err)
		}
		fn := m.ModuleAddress + "::" + m.ModuleName + "::" + m.FunctionName
		if receiver == fn || (moveHashBech32 != nil && receiver == moveHashBech32(fn)) {
			return nil
		}
		return fmt.Errorf("receiver is not properly set; expected %s, got %s", fn, receiver)
	case vmkind.EVM:
		var m struct {
			ContractAddr string `json:"contract_addr"`
		}
		if err := json.Unmarshal(h.Message, &m); err != nil {
			return fmt.Errorf("invalid evm hook message: %w", err)
		}
		if receiver != m.ContractAddr {
			return fmt.Errorf("receiver is not properly set; expected %s, got %s", m.ContractAddr, receiver)
		}
	case vmkind.Wasm:
		var m struct {
			Contract string `json:"contract"`
		}
		if err := json.Unmarshal(h.Message, &m); err != nil {
			return fmt.Errorf("invalid wasm hook message: %w", err)
		}
		if receiver != m.Contract {
			return fmt.Errorf("receiver is not properly set; expected %s, got %s", m.Contract, receiver)
		}
	}
	return nil
}

// StripAsyncCallback removes the async callback from a memo routed to vm, as the Move
// (L1) and Wasm hooks do in the send path before the packet is committed: the callback
// key goes, and the whole vm key when no message is left. It returns the new memo and
// the removed callback (nil if there was none). Other memos are returned unchanged.
func StripAsyncCallback(vm vmkind.Kind, memo string) (string, json.RawMessage) {
	if vm == "" {
		return memo, nil
	}
	var top map[string]any
	if err := json.Unmarshal([]byte(memo), &top); err != nil {
		return memo, nil
	}
	hook, ok := top[vm.String()].(map[string]any)
	if !ok {
		return memo, nil
	}
	cb, ok := hook["async_callback"]
	if !ok {
		return memo, nil
	}
	cbRaw, _ := json.Marshal(cb)
	delete(hook, "async_callback")
	if _, has := hook["message"]; !has {
		delete(top, vm.String())
	} else {
		top[vm.String()] = hook
	}
	if len(top) == 0 {
		return "", cbRaw
	}
	out, err := json.Marshal(top)
	if err != nil {
		return memo, nil
	}
	return string(out), cbRaw
}
