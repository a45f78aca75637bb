package api

import "github.com/rollgate/rollgate/internal/router/wire"

// The request and response bodies this API serves are package wire's, which the Go client
// shares without depending on the server. These two keep the names the CLI's transfer command
// still spells them by.
type (
	Chain         = wire.Chain
	OPHookRequest = wire.OPHookRequest
)
