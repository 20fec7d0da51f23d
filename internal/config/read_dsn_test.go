package config

import "testing"

func TestLoad_ReadDSN(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		c, err := Load(env(map[string]string{"STOREFRONT_DSN": "root@tcp(db:3306)/sf", "STOREFRONT_READ_DSN": "root@tcp(replica:3306)/sf"}))
		if err != nil {
			t.Fatal(err)
		}
		if c.ReadDSN != "root@tcp(replica:3306)/sf" {
			t.Fatalf("ReadDSN: got %q, want the replica", c.ReadDSN)
		}
	})
	t.Run("ErrWithoutDSN", func(t *testing.T) {
		if _, err := Load(env(map[string]string{"STOREFRONT_READ_DSN": "root@tcp(replica:3306)/sf"})); err == nil {
			t.Fatal("got nil error, want one: a replica needs STOREFRONT_DSN")
		}
	})
}
