package webhook_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/internal/webhook"
)

// TestDocs_GoVerifyAgreesWithSigner runs the Go signature check that docs/WEBHOOKS.md
// gives integrators against what the deliverer signs: genuine deliveries pass (with one
// secret or either of two while rotating); a wrong secret, a changed body and a stale
// time fail.
func TestDocs_GoVerifyAgreesWithSigner(t *testing.T) {
	doc, err := os.ReadFile("../../docs/WEBHOOKS.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/WEBHOOKS.md has no Go code block")
	}
	type check struct {
		Secret, Header, Body string
		Now                  int64
		Want                 bool
	}
	now := time.Now().Unix()
	body := []byte(`{"id":"evt_1","type":"webhook.test","created":1,"account_id":1,"data":{"object":{"é":"ü"}}}`)
	s1, s2 := webhook.NewSecret(), webhook.NewSecret()
	checks := []check{
		{s1, webhook.SignatureHeader(now, body, s1), string(body), now, true},
		{s1, webhook.SignatureHeader(now, body, s2, s1), string(body), now, true},
		{s2, webhook.SignatureHeader(now, body, s2, s1), string(body), now + 60, true},
		{s2, webhook.SignatureHeader(now, body, s1), string(body), now, false},
		{s1, webhook.SignatureHeader(now, body, s1), strings.Replace(string(body), "evt_1", "evt_2", 1), now, false},
		{s1, webhook.SignatureHeader(now-3600, body, s1), string(body), now, false},
		{s1, "v1=" + webhook.Sign(s1, now, body), string(body), now, false},
	}
	dir := t.TempDir()
	cases, _ := json.Marshal(checks)
	prog := `package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

` + string(m[1]) + `
func main() {
	var checks []struct {
		Secret, Header, Body string
		Now                  int64
	}
	if err := json.Unmarshal([]byte(os.Args[1]), &checks); err != nil {
		panic(err)
	}
	for _, c := range checks {
		fmt.Println(Verify(c.Secret, c.Header, []byte(c.Body), time.Unix(c.Now, 0)))
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "main.go", string(cases))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GO111MODULE=on", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the documented Go check does not run: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	if len(got) != len(checks) {
		t.Fatalf("got %q for %d checks", out, len(checks))
	}
	for i, c := range checks {
		if got[i] != map[bool]string{true: "true", false: "false"}[c.Want] {
			t.Errorf("check %d (%s): the documented Go check says %s, want %v", i, c.Header, got[i], c.Want)
		}
	}
}
