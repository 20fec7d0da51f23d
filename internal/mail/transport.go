package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// NewTransport returns the transport configured by STOREFRONT_SMTP_URL: an
// SMTPTransport for smtpURL, or a LogTransport writing to log when smtpURL is empty.
func NewTransport(smtpURL, from string, log *slog.Logger) (Transport, error) {
	if smtpURL == "" {
		return &LogTransport{Log: log, From: from}, nil
	}
	return NewSMTPTransport(smtpURL, from)
}

// LogTransport writes each message to the log instead of sending it, for running
// without a mail server; every message counts as sent.
type LogTransport struct {
	Log  *slog.Logger
	From string
}

// Send logs msg with its headers and body.
func (t *LogTransport) Send(ctx context.Context, msg Message) error {
	log := t.Log
	if log == nil {
		log = slog.Default()
	}
	log.InfoContext(ctx, "e-mail not sent: no SMTP server configured (STOREFRONT_SMTP_URL)",
		"outbox_id", msg.ID, "message_id", MessageID(msg.ID, t.From),
		"from", t.From, "to", msg.To, "subject", msg.Subject, "body", msg.Body)
	return nil
}

// SMTPTransport sends messages through an SMTP server with go-mail, one connection
// per message.
type SMTPTransport struct {
	host     string
	port     int
	implicit bool // smtps://: TLS from the first byte
	user     string
	pass     string
	from     string
	// Timeout bounds connecting and each SMTP command.
	Timeout time.Duration
	// TLSConfig, when set, replaces the default TLS settings (tests trust their own
	// certificate with it).
	TLSConfig *tls.Config
}

// NewSMTPTransport reads smtp://user:pass@host:port (STARTTLS when the server offers
// it; port 587 by default) or smtps://user:pass@host:port (implicit TLS; port 465 by
// default). The credentials are optional; when given they are sent only over an
// encrypted connection. from is the sender address.
func NewSMTPTransport(rawURL, from string) (*SMTPTransport, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SMTP URL: %w", err)
	}
	t := &SMTPTransport{host: u.Hostname(), from: from, Timeout: 30 * time.Second}
	switch u.Scheme {
	case "smtp":
		t.port = 587
	case "smtps":
		t.port, t.implicit = 465, true
	default:
		return nil, fmt.Errorf("SMTP URL: scheme %q is neither smtp nor smtps", u.Scheme)
	}
	if t.host == "" {
		return nil, errors.New("SMTP URL: no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("SMTP URL: bad port %q", p)
		}
		t.port = n
	}
	if u.User != nil {
		t.user = u.User.Username()
		t.pass, _ = u.User.Password()
	}
	if _, err := netmail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("sender address %q: %w", from, err)
	}
	return t, nil
}

// Addr is the server's host:port.
func (t *SMTPTransport) Addr() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

// Send delivers msg. A recipient the message cannot be addressed to, or one the server
// refuses with a 5xx reply, is a permanent failure; everything else may be retried.
func (t *SMTPTransport) Send(ctx context.Context, msg Message) error {
	m, err := t.build(msg)
	if err != nil {
		return err
	}
	opts := []gomail.Option{
		gomail.WithPort(t.port),
		gomail.WithTimeout(t.Timeout),
	}
	if t.implicit {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if t.TLSConfig != nil {
		opts = append(opts, gomail.WithTLSConfig(t.TLSConfig))
	}
	if t.user != "" {
		// PLAIN and LOGIN go out only over TLS: go-mail refuses them otherwise.
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(t.user), gomail.WithPassword(t.pass))
	}
	c, err := gomail.NewClient(t.host, opts...)
	if err != nil {
		return Permanent(fmt.Errorf("SMTP client: %w", err))
	}
	if err := c.DialAndSendWithContext(ctx, m); err != nil {
		var se *gomail.SendError
		if errors.As(err, &se) && se.Reason == gomail.ErrSMTPRcptTo && !se.IsTemp() && se.ErrorCode() >= 500 {
			return Permanent(fmt.Errorf("send to %s via %s: %w", msg.To, t.Addr(), err))
		}
		return fmt.Errorf("send via %s: %w", t.Addr(), err)
	}
	return nil
}

// build turns msg into a go-mail message, validating the addresses.
func (t *SMTPTransport) build(msg Message) (*gomail.Msg, error) {
	m := gomail.NewMsg()
	if err := m.From(t.from); err != nil {
		return nil, Permanent(fmt.Errorf("sender address %q: %w", t.from, err))
	}
	if strings.ContainsAny(msg.To, "\r\n") {
		return nil, Permanent(fmt.Errorf("recipient address %q holds a line break", msg.To))
	}
	if err := m.To(msg.To); err != nil {
		return nil, Permanent(fmt.Errorf("recipient address %q: %w", msg.To, err))
	}
	m.Subject(Subject(msg.Subject))
	m.SetMessageIDWithValue(strings.Trim(MessageID(msg.ID, t.from), "<>"))
	date := msg.Date
	if date.IsZero() {
		date = time.Now()
	}
	m.SetDateWithValue(date)
	m.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	m.SetBodyString(gomail.TypeTextPlain, msg.Body)
	return m, nil
}

// MessageID is the Message-ID header of the outbox message id sent from the address
// from: the same for every attempt, so that a message sent twice is recognisable.
func MessageID(id int64, from string) string {
	domain := "localhost"
	if a, err := netmail.ParseAddress(from); err == nil {
		if i := strings.LastIndexByte(a.Address, '@'); i >= 0 && i+1 < len(a.Address) {
			domain = a.Address[i+1:]
		}
	}
	return fmt.Sprintf("<storefront-outbox-%d@%s>", id, domain)
}
