package sim

import (
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func TestTyped(t *testing.T) {
	var got string
	h := Typed(func(_ Env, m *wrapperspb.StringValue) error {
		got = m.GetValue()
		return nil
	})
	if err := h(nil, wrapperspb.String("hello")); err != nil || got != "hello" {
		t.Fatalf("typed call: %v, got %q", err, got)
	}
	var ce *CodedError
	err := h(nil, proto.Message(&emptypb.Empty{}))
	if !errors.As(err, &ce) || ce.Codespace != "sdk" || ce.Code != 6 {
		t.Fatalf("wrong type: %v, want sdk code 6 (unknown request)", err)
	}
}
