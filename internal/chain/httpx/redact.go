package httpx

import "github.com/rollgate/rollgate/internal/redact"

// RedactText is redact.Text, under the name the router's NFT owner lookup still calls; new
// code calls package redact.
func RedactText(s string) string { return redact.Text(s) }
