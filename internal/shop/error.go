// Package shop is the domain of storefront: accounts, storefronts, subscribers and
// purchases, the filters over them, the rules that decide entitlement, and the
// interfaces the storage and web layers meet at. It depends on the standard library only.
package shop

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to one HTTP status in the web layer (docs/API.md#errors).
const (
	EInvalid          = "invalid_parameter"
	EMissing          = "missing_parameter"
	EUnknownParam     = "unknown_parameter"
	EUnauthenticated  = "unauthenticated"
	EForbidden        = "forbidden"
	ENotFound         = "not_found"
	EConflict         = "not_reactivatable"
	EIdempotency      = "idempotency_conflict"
	ETooLarge         = "too_large"
	ERateLimited      = "rate_limited"
	EUnavailable      = "unavailable"
	EInternal         = "internal"
	EMethodNotAllowed = "method_not_allowed"
)

// Error is the one error type of the domain: a stable code, a sentence meant for the
// person who sent the request, and the parameter at fault when there is one.
type Error struct {
	Code    string
	Message string
	Param   string
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Param != "" {
		return fmt.Sprintf("%s: %s (%s)", e.Code, e.Message, e.Param)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ParamErrorf returns an *Error about one parameter.
func ParamErrorf(code, param, format string, args ...any) *Error {
	return &Error{Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EInternal for any
// other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the human sentence of err: the message of an *Error, and a
// generic sentence for anything else, so that no driver detail reaches a client.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "An internal error occurred."
}

// ErrorParam returns the parameter named by err, if any.
func ErrorParam(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Param
	}
	return ""
}
