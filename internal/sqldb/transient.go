package sqldb

// Transient database errors: the weather a long-running writer must ride out (a connection
// cut by the server or the network, a database restarting, a lost serialization race, a busy
// SQLite file) as opposed to errors retrying cannot fix (a schema mismatch, a full disk, a
// constraint violated by the data).

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// IsTransient reports whether err is a database failure that a later attempt of the same
// work, on a fresh connection, can be expected to get past. A transaction (InTx) is atomic, so
// work that failed with a transient error can be run again as it is.
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false // the caller is stopping, or gave the work a deadline it missed
	}
	if ConnLost(err) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001", // serialization_failure
			"40P01", // deadlock_detected
			"53300", // too_many_connections
			"55P03": // lock_not_available
			return true
		}
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		// The primary result code is the low byte of an extended one (SQLITE_BUSY_SNAPSHOT…).
		switch se.Code() & 0xff {
		case 5, // SQLITE_BUSY: another connection holds the lock beyond busy_timeout
			6: // SQLITE_LOCKED: a conflict inside this process's shared cache
			return true
		}
	}
	return false
}

// ConnLost reports whether err means the connection is gone or could not be made: the
// server ended the session (an operator's pg_terminate_backend, a restart) or the network
// failed. The pool's other connections are likely gone with it.
func ConnLost(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && len(pe.Code) == 5 {
		switch pe.Code[:2] {
		case "08": // connection_exception
			return true
		case "57":
			// admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now;
			// 57014 query_canceled is a cancel, not a lost connection.
			return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
		}
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE):
		return true
	}
	// pgx reports a use of a connection it already found broken as "conn closed" without a
	// typed error; SafeToRetry marks it (nothing was sent on it).
	return pgconn.SafeToRetry(err)
}

// SessionLost reports whether err means an established session was lost (ended by the server,
// or found closed), as opposed to a server that cannot be reached: a fresh session can be
// tried at once, where an unreachable server is waited for with backoff.
func SessionLost(err error) bool {
	var ce *pgconn.ConnectError
	return ConnLost(err) && !errors.As(err, &ce)
}
