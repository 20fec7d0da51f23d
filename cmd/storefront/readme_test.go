package main

import (
	"bytes"

	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestREADME runs the README's run command as a user would (no STOREFRONT_DSN: a private
// MariaDB with demo data) and sends every curl example of its API section, which must
// all succeed. It also checks that the program stops the database and exits cleanly.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	if !strings.Contains(lines[3], "go run ./cmd/storefront") || !strings.Contains(lines[4], "go test -count=1 -timeout 30m ./...") {
		t.Fatalf("the README must open with the run and test commands; got %q and %q", lines[3], lines[4])
	}
	curls, vars := readmeCurls(t, string(readme))
	if len(curls) < 5 {
		t.Fatalf("found %d curl examples in the README's API section", len(curls))
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	env := map[string]string{"STOREFRONT_DATA_DIR": t.TempDir(), "STOREFRONT_ADDR": addr}
	stderr, stop := startServe(t, env, 3*time.Minute)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("serve returned %v", err)
		}
	}()
	out := stderr.String()
	if !strings.Contains(out, "demo login: owner@demo.test / storefront-demo") || !strings.Contains(out, vars["KEY"]) {
		t.Fatalf("the start-up output lacks the demo login or key:\n%s", out)
	}
	// The printed curl works as printed, with the demo key's account's API user name.
	_, printed, ok := strings.Cut(out, "demo API: ")
	if !ok {
		t.Fatalf("the start-up output lacks the demo API's curl:\n%s", out)
	}
	printed, _, _ = strings.Cut(printed, "\n")
	curls = append(curls, printed)

	for _, line := range curls {
		t.Run(line, func(t *testing.T) {
			req := curlRequest(t, line, vars, addr)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("got %d %s", res.StatusCode, body)
			}
		})
	}
}

// readmeCurls returns the curl lines of the README's API section and the shell
// variables it sets.
func readmeCurls(t *testing.T, readme string) ([]string, map[string]string) {
	_, api, ok := strings.Cut(readme, "## API\n")
	if !ok {
		t.Fatal("the README has no API section")
	}
	_, block, _ := strings.Cut(api, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	vars := map[string]string{}
	var curls []string
	for _, l := range strings.Split(block, "\n") {
		l = strings.TrimSpace(l)
		if k, v, ok := strings.Cut(l, "="); ok && !strings.Contains(k, " ") {
			vars[k] = v
		} else if strings.HasPrefix(l, "curl ") {
			curls = append(curls, l)
		}
	}
	return curls, vars
}

// curlRequest turns a README curl line into a request to addr: it knows the options
// the README uses (-u, -H, -X, -d, -i).
func curlRequest(t *testing.T, line string, vars map[string]string, addr string) *http.Request {
	t.Helper()
	words := shellWords(t, line, vars)[1:]
	method, target, user := "", "", ""
	var headers, data []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		next := func() string {
			i++
			if i >= len(words) {
				t.Fatalf("%s needs a value", w)
			}
			return words[i]
		}
		switch w {
		case "-u":
			user = next()
		case "-H":
			headers = append(headers, next())
		case "-X":
			method = next()
		case "-d":
			data = append(data, next())
		case "-i":
		default:
			if strings.HasPrefix(w, "-") {
				t.Fatalf("unknown curl option %s", w)
			}
			target = w
		}
	}
	target = strings.Replace(target, "127.0.0.1:8080", addr, 1)
	var body io.Reader
	if method == "" {
		method = "GET"
		if data != nil {
			method = "POST"
		}
	}
	if data != nil {
		body = strings.NewReader(strings.Join(data, "&"))
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	if data != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if u, p, ok := strings.Cut(user, ":"); ok {
		req.SetBasicAuth(u, p)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	return req
}

// shellWords splits a command line as sh would for the README's simple cases: single
// and double quotes, and $VAR outside single quotes.
func shellWords(t *testing.T, line string, vars map[string]string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				t.Fatalf("unbalanced quote in %s", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				t.Fatalf("unbalanced quote in %s", line)
			}
			cur.WriteString(expand(line[i+1:i+1+j], vars))
			i += j + 1
			inWord = true
		case c == '$':
			j := i + 1
			for j < len(line) && (line[j] == '_' || line[j] >= 'A' && line[j] <= 'Z' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= '0' && line[j] <= '9') {
				j++
			}
			cur.WriteString(vars[line[i+1:j]])
			i = j - 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func expand(s string, vars map[string]string) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "$"+k, v)
	}
	return s
}

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
