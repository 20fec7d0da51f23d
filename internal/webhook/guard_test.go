package webhook_test

import (
	"context"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"storefront/internal/shop"
	"storefront/internal/webhook"
)

func TestForbidden(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "127.9.9.9": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback",
		"10.1.2.3": "private", "172.16.0.1": "private", "192.168.1.1": "private", "fd12::1": "private",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "239.1.2.3": "multicast", "224.0.0.251": "link-local",
		"100.64.0.1": "reserved", "192.0.2.7": "reserved", "198.18.0.1": "reserved", "240.0.0.1": "reserved", "255.255.255.255": "reserved",
		"64:ff9b::7f00:1": "reserved", "2002:7f00:1::": "reserved", "2001:db8::1": "reserved",
		"93.184.216.34": "", "1.1.1.1": "", "2606:4700:4700::1111": "",
	} {
		got := webhook.Forbidden(netip.MustParseAddr(addr))
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: got %q, want %q", addr, got, want)
		}
	}
}

// FuzzGuard_CheckURL: whatever is typed as an endpoint URL is either refused with an
// invalid_parameter error on url, or is an http(s) URL with a host and no user.
func FuzzGuard_CheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/hooks", "http://127.0.0.1:8080/x", "ftp://x", "http://u:p@h/", "http://[::1", "", " http://a/",
		"http://a/#f", "https://%zz/", "http://\x00/", "HTTPS://EXAMPLE.COM", strings.Repeat("a", 3000)} {
		f.Add(s)
	}
	g := &webhook.Guard{AllowPrivate: true}
	f.Fuzz(func(t *testing.T, raw string) {
		err := g.CheckURL(context.Background(), raw)
		if err != nil {
			if shop.ErrorCode(err) != shop.EInvalid || shop.ErrorParam(err) != "url" {
				t.Fatalf("%q: got %v, want an invalid url", raw, err)
			}
			return
		}
		u, perr := url.Parse(raw)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil {
			t.Fatalf("%q was accepted: %+v, %v", raw, u, perr)
		}
	})
}
