package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoad(t *testing.T) {
	t.Run("Defaults", func(t *testing.T) {
		c, err := Load(env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if c.Addr != "127.0.0.1:8080" || c.BaseURL != "http://127.0.0.1:8080" || c.DataDir != "./.devdata" || c.RateLimit != 600 || c.MailFrom != "no-reply@localhost" || c.DSN != "" || c.SessionKey != nil || c.WebhookAllowPrivate ||
			c.LogFormat != "text" || c.MetricsAddr != "" || c.DrainDelay != 0 {
			t.Fatalf("got %+v", c)
		}
	})
	t.Run("Values", func(t *testing.T) {
		c, err := Load(env(map[string]string{
			"STOREFRONT_ADDR": "0.0.0.0:9000", "STOREFRONT_BASE_URL": "https://shop.example/", "STOREFRONT_RATE_LIMIT": "0",
			"STOREFRONT_SESSION_KEY": strings.Repeat("ab", 32), "STOREFRONT_DSN": "root@tcp(db:3306)/sf",
			"STOREFRONT_WEBHOOK_ALLOW_PRIVATE": "1", "STOREFRONT_LOG_FORMAT": "json", "STOREFRONT_METRICS_ADDR": "127.0.0.1:9100",
			"STOREFRONT_DRAIN_DELAY": "5s",
		}))
		if err != nil {
			t.Fatal(err)
		}
		if c.BaseURL != "https://shop.example" || c.RateLimit != 0 || len(c.SessionKey) != 32 || c.DSN != "root@tcp(db:3306)/sf" || !c.WebhookAllowPrivate ||
			c.LogFormat != "json" || c.MetricsAddr != "127.0.0.1:9100" || c.DrainDelay != 5*time.Second {
			t.Fatalf("got %+v", c)
		}
	})
	for name, e := range map[string]map[string]string{
		"BadRate":                    {"STOREFRONT_RATE_LIMIT": "fast"},
		"NegRate":                    {"STOREFRONT_RATE_LIMIT": "-1"},
		"ShortKey":                   {"STOREFRONT_SESSION_KEY": "abcd"},
		"BadAddr":                    {"STOREFRONT_ADDR": "8080"},
		"BadBaseURL":                 {"STOREFRONT_BASE_URL": "ftp://x"},
		"BadSMTP":                    {"STOREFRONT_SMTP_URL": "mail.example:25"},
		"BadMailFrom":                {"STOREFRONT_MAIL_FROM": "nobody"},
		"BadPrivate":                 {"STOREFRONT_WEBHOOK_ALLOW_PRIVATE": "yes"},
		"BadLogFormat":               {"STOREFRONT_LOG_FORMAT": "JSON"},
		"BadMetricsAddr":             {"STOREFRONT_METRICS_ADDR": "9100"},
		"MetricsOnPublic":            {"STOREFRONT_ADDR": "127.0.0.1:8080", "STOREFRONT_METRICS_ADDR": "127.0.0.1:8080"},
		"BadOTLP":                    {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
		"BadDrainDelay":              {"STOREFRONT_DRAIN_DELAY": "5"},
		"LongDrainDelay":             {"STOREFRONT_DRAIN_DELAY": "1h"},
		"BadPasskeyOrigin":           {"STOREFRONT_PASSKEY_ORIGIN": "https://shop.example/dashboard"},
		"PasskeyRPIDOfOtherSite":     {"STOREFRONT_BASE_URL": "https://shop.example", "STOREFRONT_PASSKEY_RP_ID": "other.example"},
		"PasskeyRPIDNotADomainAbove": {"STOREFRONT_PASSKEY_ORIGIN": "https://shop.example", "STOREFRONT_PASSKEY_RP_ID": "hop.example"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Load(env(e)); err == nil {
				t.Fatalf("got nil error, want one for %v", e)
			}
		})
	}
}
