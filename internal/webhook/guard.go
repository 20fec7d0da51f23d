package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"storefront/internal/shop"
)

// reserved lists the ranges no delivery may connect to, beyond what netip's predicates
// name (loopback, private, link-local, multicast, unspecified).
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 (embeds IPv4)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local NAT64
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4 (embeds IPv4)
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("fec0::/10"),       // site-local
}

// Forbidden reports why an address may not be connected to, or "" when it may.
func Forbidden(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case !a.IsValid():
		return "an invalid address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsUnspecified():
		return "an unspecified address"
	case a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "a multicast address"
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return "a reserved address"
		}
	}
	return ""
}

// ErrForbiddenAddress is wrapped into the error of a connection refused by the guard.
var ErrForbiddenAddress = errors.New("address not allowed for webhooks")

// Guard checks endpoint URLs and the addresses deliveries connect to.
type Guard struct {
	// AllowPrivate lifts the address rule (STOREFRONT_WEBHOOK_ALLOW_PRIVATE=1): for
	// receivers on the same machine or network.
	AllowPrivate bool
	// Resolver looks names up; nil means net.DefaultResolver.
	Resolver *net.Resolver
}

// control is a net.Dialer Control function: it runs for every address the dialer is
// about to connect to, after name resolution, so that a name that resolves to a public
// address when saved and to a private one later is still refused.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	if g.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	if why := Forbidden(ap.Addr()); why != "" {
		return fmt.Errorf("%w: %s is %s", ErrForbiddenAddress, ap.Addr(), why)
	}
	return nil
}

// Dialer returns a dialer that refuses the forbidden addresses at connect time.
func (g *Guard) Dialer() *net.Dialer {
	return &net.Dialer{Control: g.control, Resolver: g.Resolver}
}

// CheckURL checks an endpoint URL when it is saved: http or https, a host, no user
// information, and (unless AllowPrivate) a host whose every address is allowed.
// Returns an EInvalid error naming what is wrong.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	bad := func(format string, args ...any) error {
		return shop.ParamErrorf(shop.EInvalid, "url", format, args...)
	}
	if len(raw) > 2048 {
		return bad("The URL must be at most 2,048 characters.")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || raw != strings.TrimSpace(raw) {
		return bad("%q is not a URL.", raw)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return bad("The URL must start with https:// or http://.")
	}
	if u.Hostname() == "" {
		return bad("The URL has no host name.")
	}
	if u.User != nil {
		return bad("The URL must not carry a user name or password.")
	}
	if u.Fragment != "" {
		return bad("The URL must not have a #fragment.")
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if why := Forbidden(a); why != "" {
			return bad("%s is %s; webhooks go to public addresses only.", host, why)
		}
		return nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return bad("The host name %s does not resolve.", host)
	}
	for _, a := range addrs {
		if why := Forbidden(a); why != "" {
			return bad("%s resolves to %s, %s; webhooks go to public addresses only.", host, a.Unmap(), why)
		}
	}
	return nil
}
