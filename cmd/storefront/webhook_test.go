package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"storefront/internal/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestWebhookCommands(t *testing.T) {
	ctx := context.Background()
	env := map[string]string{"STOREFRONT_DSN": dbtest.DSN(t)}
	cmd := func(stdin string, args ...string) (string, error) {
		t.Helper()
		var out bytes.Buffer
		err := run(ctx, args, func(k string) string { return env[k] }, strings.NewReader(stdin), &out, io.Discard)
		return out.String(), err
	}
	if _, err := cmd(`{"accounts":[{"id":1,"name":"One","api_username":"one","timezone":"UTC"}]}`, "import", "-"); err != nil {
		t.Fatal(err)
	}

	t.Run("RefusesLoopbackByDefault", func(t *testing.T) {
		for _, u := range []string{"http://127.0.0.1:8080/hooks", "http://localhost/hooks", "http://10.0.0.8/hooks", "http://169.254.169.254/"} {
			out, err := cmd("", "webhook", "create", "--account", "1", "--url", u)
			if err == nil || out != "" || !strings.Contains(err.Error(), "public addresses only") {
				t.Errorf("%s: got %q, %v; want a refusal naming the rule", u, out, err)
			}
		}
	})
	env["STOREFRONT_WEBHOOK_ALLOW_PRIVATE"] = "1"
	var id string
	t.Run("Create", func(t *testing.T) {
		out, err := cmd("", "webhook", "create", "--account", "1", "--url", "http://127.0.0.1:8080/hooks", "--events", "purchase.created,purchase.reactivated")
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^whsec_[0-9a-f]{64}\n$`).MatchString(out) {
			t.Fatalf("stdout %q, want the secret alone", out)
		}
		if _, err := cmd("", "webhook", "create", "--account", "1", "--url", "http://127.0.0.1/", "--events", "purchase.deleted"); err == nil || !strings.Contains(err.Error(), "purchase.deleted") {
			t.Fatalf("unknown event type: got %v", err)
		}
		if _, err := cmd("", "webhook", "create", "--account", "9", "--url", "http://127.0.0.1/"); err == nil {
			t.Fatal("an endpoint of an unknown account was created")
		}
	})
	t.Run("List", func(t *testing.T) {
		out, err := cmd("", "webhook", "list", "--account", "1")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`^(\d+)\tenabled\tpurchase.created,purchase.reactivated\thttp://127.0.0.1:8080/hooks\n$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("list: %q", out)
		}
		id = m[1]
	})
	t.Run("Delete", func(t *testing.T) {
		if _, err := cmd("", "webhook", "delete", id); err != nil {
			t.Fatal(err)
		}
		if out, _ := cmd("", "webhook", "list", "--account", "1"); out != "" {
			t.Fatalf("after delete: %q", out)
		}
		if _, err := cmd("", "webhook", "delete", id); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("deleting again: %v", err)
		}
	})
}
