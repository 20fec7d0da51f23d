package mysql_test

import (
	"context"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

func TestUserService_FindUserByID(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	dbtest.MustExec(t, db.DB, "INSERT INTO accounts (id, name, api_username, timezone) VALUES (1, 'One', 'one', 'UTC'), (2, 'Two', 'two', 'UTC')")
	mysql.BcryptCost = bcrypt.MinCost
	id, err := mysql.NewAdminService(db).CreateUser(ctx, 1, "zoe@example.com", shop.RoleStaff, "a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	users := mysql.NewUserService(db)

	t.Run("OK", func(t *testing.T) {
		u, err := users.FindUserByID(ctx, 1, id)
		if err != nil {
			t.Fatal(err)
		}
		if u.ID != id || u.AccountID != 1 || u.Email != "zoe@example.com" || u.Role != shop.RoleStaff || u.CreatedAt.IsZero() {
			t.Fatalf("got %+v, want user %d of account 1, zoe@example.com, staff", u, id)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		// Another account's user is not found, nor is one that does not exist.
		for _, c := range []struct{ account, id int64 }{{2, id}, {1, id + 1000}} {
			if _, err := users.FindUserByID(ctx, c.account, c.id); shop.ErrorCode(err) != shop.ENotFound {
				t.Errorf("account %d, user %d: got %v, want %s", c.account, c.id, err, shop.ENotFound)
			}
		}
	})
}
