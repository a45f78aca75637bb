package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://rest.example.com", "https://rest.example.com"},
		{"https://rest.example.com/base?chain=x", "https://rest.example.com/base?chain=x"},
		{"https://user:hunter2@rest.example.com/", "https://xxxxx@rest.example.com/"},
		{"https://0123abcd@rpc.example.com", "https://xxxxx@rpc.example.com"},
		{"https://rest.example.com/?apikey=s3cret", "https://rest.example.com/?apikey=xxxxx"},
		{"https://rest.example.com/?b=1&api_key=s3cret&a=2", "https://rest.example.com/?b=1&api_key=xxxxx&a=2"},
		{"https://rest.example.com/?key=s3cret&Token=t0k&access_token=t1", "https://rest.example.com/?key=xxxxx&Token=xxxxx&access_token=xxxxx"},
		{"https://rest.example.com/?x-api-key=s3cret&page=2", "https://rest.example.com/?x-api-key=xxxxx&page=2"},
		{"https://rest.example.com/?api%5Fkey=s3cret", "https://rest.example.com/?api%5Fkey=xxxxx"},
		{"https://u:p@rest.example.com/v1?auth=s3cret&q=%20", "https://xxxxx@rest.example.com/v1?auth=xxxxx&q=%20"},
		{"http://u:p@[::1]:80/?key", "http://xxxxx@[::1]:80/?key"},
		{"::not a url u:p@host", "::not a url u:p@host"},
		{"http://u:p@host/%zz", "http://xxxxx@host/%zz"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := URL(tc.in); got != tc.want {
				t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if strings.Contains(URL(tc.in), "s3cret") || strings.Contains(URL(tc.in), "hunter2") {
				t.Errorf("secret left in %q", URL(tc.in))
			}
		})
	}
}

func TestText(t *testing.T) {
	in := `balances: GET "https://alice:hunter2@rest.example.com/cosmos/bank?apikey=s3cret": dial tcp: refused; next http://h/?token=abc`
	got := Text(in)
	want := `balances: GET "https://xxxxx@rest.example.com/cosmos/bank?apikey=xxxxx": dial tcp: refused; next http://h/?token=xxxxx`
	if got != want {
		t.Errorf("Text:\n got %s\nwant %s", got, want)
	}
	if s := "no url here"; Text(s) != s {
		t.Errorf("changed %q", s)
	}
}
