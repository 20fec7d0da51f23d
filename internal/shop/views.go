package shop

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SavedView is a named filter set of the purchases page: its query string, for one
// user or (UserID nil) for the whole account.
type SavedView struct {
	ID        int64
	AccountID int64
	UserID    *int64
	Name      string
	// Query is the purchases page's query string, without the leading "?".
	Query string
}

// Shared reports whether the view belongs to the whole account.
func (v SavedView) Shared() bool { return v.UserID == nil }

// MaxViewNameLen bounds a view's name, in characters.
const MaxViewNameLen = 80

// CleanViewName trims a view's name and checks it: 1 to 80 characters, no control
// characters. Returns an EInvalid error naming the "name" parameter.
func CleanViewName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", ParamErrorf(EMissing, "name", "Give the view a name.")
	}
	if utf8.RuneCountInString(name) > MaxViewNameLen {
		return "", ParamErrorf(EInvalid, "name", "A view's name may be at most %d characters long.", MaxViewNameLen)
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 || !utf8.ValidString(name) {
		return "", ParamErrorf(EInvalid, "name", "A view's name may not hold line breaks or control characters.")
	}
	return name, nil
}

// SavedViewService keeps saved views. A user may change their own views; only owners
// (owner true) may make, rename, move or delete the account's. Another user's view is
// not found.
type SavedViewService interface {
	// FindSavedViews returns the account's shared views, then the user's, each in
	// their order.
	FindSavedViews(ctx context.Context, accountID, userID int64) ([]SavedView, error)
	// CreateSavedView adds a view at the end of its group. Returns EForbidden when a
	// non-owner saves a shared view.
	CreateSavedView(ctx context.Context, v SavedView, owner bool) (*SavedView, error)
	// RenameSavedView renames a view. Returns ENotFound or EForbidden.
	RenameSavedView(ctx context.Context, accountID, userID, id int64, owner bool, name string) error
	// MoveSavedView moves a view one place earlier (by -1) or later (by 1) in its group.
	// Returns ENotFound or EForbidden.
	MoveSavedView(ctx context.Context, accountID, userID, id int64, owner bool, by int) error
	// DeleteSavedView deletes a view. Returns ENotFound or EForbidden.
	DeleteSavedView(ctx context.Context, accountID, userID, id int64, owner bool) error
}
