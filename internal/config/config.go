// Package config reads storefront's settings from the environment (README.md,
// Configuration).
package config

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config holds every setting of README.md's Configuration table.
type Config struct {
	// DSN names the database; empty means a private MariaDB in DataDir.
	DSN string
	// ReadDSN names a read replica of DSN for list and detail reads; empty means every
	// read goes to DSN.
	ReadDSN string
	// DataDir is where the private MariaDB keeps its files.
	DataDir string
	// Addr is the listen address.
	Addr string
	// BaseURL is the public URL used in e-mails and links.
	BaseURL string
	// PasskeyOrigin is the origin passkeys are bound to (STOREFRONT_PASSKEY_ORIGIN,
	// scheme://host[:port]); empty means BaseURL's.
	PasskeyOrigin string
	// PasskeyRPID is the WebAuthn relying party id (STOREFRONT_PASSKEY_RP_ID): the
	// origin's host or a domain above it; empty means the origin's host.
	PasskeyRPID string
	// SessionKey signs session cookies; nil means one is generated per run.
	SessionKey []byte
	// SMTPURL names the mail server; empty means e-mails are written to the log.
	SMTPURL string
	// MailFrom is the sender address.
	MailFrom string
	// RateLimit is the number of API requests a minute per key; 0 means no limit.
	RateLimit int
	// WebhookAllowPrivate lets webhook endpoints be on loopback, private, link-local
	// and reserved addresses (STOREFRONT_WEBHOOK_ALLOW_PRIVATE=1).
	WebhookAllowPrivate bool
	// LogFormat is how log lines are written: "text" (for people) or "json".
	LogFormat string
	// MetricsAddr is where /metrics is served, apart from the public address; empty
	// serves no metrics.
	MetricsAddr string
	// DrainDelay is how long, once told to stop, the server keeps answering (with
	// /readyz at 503) before it stops taking requests, so that load balancers notice.
	DrainDelay time.Duration
	// OTLPEndpoint is the OpenTelemetry collector's base URL
	// (OTEL_EXPORTER_OTLP_ENDPOINT) that the spans of requests, SQL statements and
	// background work are sent to; empty traces nothing.
	OTLPEndpoint string
}

// Load reads the configuration from getenv (os.Getenv in production) and validates it.
func Load(getenv func(string) string) (Config, error) {
	c := Config{
		DSN:           getenv("STOREFRONT_DSN"),
		ReadDSN:       getenv("STOREFRONT_READ_DSN"),
		DataDir:       or(getenv("STOREFRONT_DATA_DIR"), "./.devdata"),
		Addr:          or(getenv("STOREFRONT_ADDR"), "127.0.0.1:8080"),
		BaseURL:       getenv("STOREFRONT_BASE_URL"),
		PasskeyOrigin: getenv("STOREFRONT_PASSKEY_ORIGIN"),
		PasskeyRPID:   getenv("STOREFRONT_PASSKEY_RP_ID"),
		SMTPURL:       getenv("STOREFRONT_SMTP_URL"),
		MailFrom:      or(getenv("STOREFRONT_MAIL_FROM"), "no-reply@localhost"),
		RateLimit:     600,
		LogFormat:     or(getenv("STOREFRONT_LOG_FORMAT"), "text"),
		MetricsAddr:   getenv("STOREFRONT_METRICS_ADDR"),
		OTLPEndpoint:  getenv("OTEL_EXPORTER_OTLP_ENDPOINT"),
	}
	if v := getenv("STOREFRONT_DRAIN_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > 5*time.Minute {
			return c, fmt.Errorf("STOREFRONT_DRAIN_DELAY: %q is not a duration between 0s and 5m (e.g. 5s)", v)
		}
		c.DrainDelay = d
	}
	if v := getenv("STOREFRONT_RATE_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return c, fmt.Errorf("STOREFRONT_RATE_LIMIT: %q is not a whole number of requests a minute (0 for no limit)", v)
		}
		c.RateLimit = n
	}
	switch v := getenv("STOREFRONT_WEBHOOK_ALLOW_PRIVATE"); v {
	case "", "0":
	case "1":
		c.WebhookAllowPrivate = true
	default:
		return c, fmt.Errorf("STOREFRONT_WEBHOOK_ALLOW_PRIVATE: %q is neither 1 nor 0", v)
	}
	if v := getenv("STOREFRONT_SESSION_KEY"); v != "" {
		key, err := decodeKey(v)
		if err != nil {
			return c, fmt.Errorf("STOREFRONT_SESSION_KEY: %w", err)
		}
		c.SessionKey = key
	}
	return c, c.Finish()
}

// Finish fills derived settings and validates; call it again after flags change fields.
func (c *Config) Finish() error {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("STOREFRONT_ADDR: %q is not host:port", c.Addr)
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + c.Addr
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("STOREFRONT_BASE_URL: %q is not an http(s) URL", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if err := c.checkPasskeys(); err != nil {
		return err
	}
	if c.SMTPURL != "" {
		u, err := url.Parse(c.SMTPURL)
		if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Host == "" {
			return fmt.Errorf("STOREFRONT_SMTP_URL: %q is not smtp://user:pass@host:port", c.SMTPURL)
		}
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return fmt.Errorf("STOREFRONT_LOG_FORMAT: %q is neither text nor json", c.LogFormat)
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			return fmt.Errorf("STOREFRONT_METRICS_ADDR: %q is not host:port", c.MetricsAddr)
		}
		if c.MetricsAddr == c.Addr {
			return fmt.Errorf("STOREFRONT_METRICS_ADDR: %q is the public address; metrics are served apart from it", c.MetricsAddr)
		}
	}
	if c.OTLPEndpoint != "" {
		u, err := url.Parse(c.OTLPEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %q is not an http(s) URL", c.OTLPEndpoint)
		}
	}
	if c.ReadDSN != "" && c.DSN == "" {
		return fmt.Errorf("STOREFRONT_READ_DSN needs STOREFRONT_DSN: a replica of the private database is not possible")
	}
	if !strings.Contains(c.MailFrom, "@") {
		return fmt.Errorf("STOREFRONT_MAIL_FROM: %q is not an e-mail address", c.MailFrom)
	}
	return nil
}

// decodeKey reads a secret of at least 32 bytes written in hex or base64.
func decodeKey(v string) ([]byte, error) {
	if b, err := hex.DecodeString(v); err == nil {
		if len(b) < 32 {
			return nil, fmt.Errorf("must hold at least 32 bytes (64 hex digits), has %d", len(b))
		}
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(v); err == nil {
			if len(b) < 32 {
				return nil, fmt.Errorf("must hold at least 32 bytes, has %d", len(b))
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("must be hex or base64")
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// checkPasskeys checks that the passkeys' origin is scheme://host[:port] and that their
// relying party id is its host or a domain above it (docs/SECURITY.md#passkeys).
func (c *Config) checkPasskeys() error {
	origin := c.PasskeyOrigin
	if origin == "" {
		origin = c.BaseURL
	} else {
		u, err := url.Parse(origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return fmt.Errorf("STOREFRONT_PASSKEY_ORIGIN: %q is not scheme://host[:port] (e.g. https://shop.example)", origin)
		}
	}
	if c.PasskeyRPID == "" {
		return nil
	}
	u, _ := url.Parse(origin)
	host, rp := strings.ToLower(u.Hostname()), strings.ToLower(c.PasskeyRPID)
	if host != rp && !strings.HasSuffix(host, "."+rp) {
		return fmt.Errorf("STOREFRONT_PASSKEY_RP_ID: %q is neither the host of %s nor a domain above it", c.PasskeyRPID, origin)
	}
	return nil
}
