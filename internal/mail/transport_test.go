package mail_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"storefront/internal/mail"
	"storefront/internal/smtptest"
)

func TestSMTPTransport_Send(t *testing.T) {
	ctx := context.Background()
	srv := smtptest.Start(t)
	tr, err := mail.NewSMTPTransport(srv.URL(), "shop@pixel.example")
	if err != nil {
		t.Fatal(err)
	}
	tr.Timeout = 5 * time.Second
	msg := mail.Message{ID: 77, To: "zoe@example.com", Subject: "Your purchase is ready: Ünïcödé", Body: "Hello Zoë,\n\nPHOTO-KEY-1\n", Date: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}

	t.Run("OK", func(t *testing.T) {
		if err := tr.Send(ctx, msg); err != nil {
			t.Fatal(err)
		}
		got := srv.Messages()
		if len(got) != 1 {
			t.Fatalf("got %d messages, want 1", len(got))
		}
		m := got[0]
		if m.From != "shop@pixel.example" || m.To != "zoe@example.com" || m.Subject != msg.Subject || m.Body != msg.Body {
			t.Errorf("got from %q to %q subject %q body %q", m.From, m.To, m.Subject, m.Body)
		}
		if want := mail.MessageID(77, "shop@pixel.example"); m.MessageID != want || want != "<storefront-outbox-77@pixel.example>" {
			t.Errorf("Message-ID: got %q, want %q", m.MessageID, want)
		}
		if d, _ := m.Header.Date(); !d.Equal(msg.Date) {
			t.Errorf("Date: got %v, want %v", d, msg.Date)
		}
	})

	t.Run("ErrInvalidRecipient", func(t *testing.T) {
		for _, to := range []string{"not an address", "zoe@example.com\r\nBcc: x@example.com"} {
			m := msg
			m.To = to
			if err := tr.Send(ctx, m); !mail.IsPermanent(err) {
				t.Errorf("Send to %q: got %v, want a permanent error", to, err)
			}
		}
	})

	t.Run("ErrRecipientRefused", func(t *testing.T) {
		srv.RefuseRcpt(&smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"})
		defer srv.RefuseRcpt(nil)
		if err := tr.Send(ctx, msg); !mail.IsPermanent(err) {
			t.Errorf("got %v, want a permanent error", err)
		}
	})

	t.Run("ErrTemporary", func(t *testing.T) {
		srv.RefuseData(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
		defer srv.RefuseData(nil)
		err := tr.Send(ctx, msg)
		if err == nil || mail.IsPermanent(err) {
			t.Errorf("got %v, want a temporary error", err)
		}
	})
}

func TestSMTPTransport_SendImplicitTLS(t *testing.T) {
	srv, clientTLS := smtptest.StartTLS(t, "mailer", "s3cret", false)
	msg := mail.Message{ID: 8, To: "zoe@example.com", Subject: "Ready", Body: "PHOTO-KEY-1\n"}

	t.Run("OK", func(t *testing.T) {
		tr, err := mail.NewSMTPTransport("smtps://mailer:s3cret@"+srv.Addr(), from)
		if err != nil {
			t.Fatal(err)
		}
		tr.TLSConfig = clientTLS
		if err := tr.Send(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
		got := srv.Messages()
		if len(got) != 1 || got[0].User != "mailer" || got[0].To != "zoe@example.com" || got[0].Body != msg.Body {
			t.Fatalf("got %+v, want one message from user mailer", got)
		}
	})

	t.Run("ErrWrongPassword", func(t *testing.T) {
		tr, err := mail.NewSMTPTransport("smtps://mailer:wrong@"+srv.Addr(), from)
		if err != nil {
			t.Fatal(err)
		}
		tr.TLSConfig = clientTLS
		if err := tr.Send(context.Background(), msg); err == nil || mail.IsPermanent(err) {
			t.Fatalf("got %v, want a temporary error", err)
		}
	})

	t.Run("ErrUntrustedCertificate", func(t *testing.T) {
		tr, err := mail.NewSMTPTransport("smtps://mailer:s3cret@"+srv.Addr(), from)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Send(context.Background(), msg); err == nil {
			t.Fatal("sent to a server whose certificate is not trusted")
		}
	})
}

func TestSMTPTransport_SendSTARTTLS(t *testing.T) {
	// The server takes credentials only over TLS: a delivery proves STARTTLS was used.
	srv, clientTLS := smtptest.StartTLS(t, "mailer", "s3cret", true)
	tr, err := mail.NewSMTPTransport("smtp://mailer:s3cret@"+srv.Addr(), from)
	if err != nil {
		t.Fatal(err)
	}
	tr.TLSConfig = clientTLS
	if err := tr.Send(context.Background(), mail.Message{ID: 9, To: "zoe@example.com", Subject: "Ready", Body: "x\n"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Messages(); len(got) != 1 || got[0].User != "mailer" {
		t.Fatalf("got %+v, want one message from user mailer", got)
	}
}

func TestNewSMTPTransport(t *testing.T) {
	for _, tc := range []struct {
		url, addr string
	}{
		{"smtp://user:pass@mail.example", "mail.example:587"},
		{"smtp://mail.example:25", "mail.example:25"},
		{"smtps://u:p@mail.example", "mail.example:465"},
	} {
		tr, err := mail.NewSMTPTransport(tc.url, "a@example.com")
		if err != nil || tr.Addr() != tc.addr {
			t.Errorf("%s: got %v, %v, want %s", tc.url, tr, err, tc.addr)
		}
	}
	for _, bad := range []string{"http://mail.example", "smtp://", "smtp://mail.example:99999", "::"} {
		if _, err := mail.NewSMTPTransport(bad, "a@example.com"); err == nil {
			t.Errorf("%s: got no error", bad)
		}
	}
	if _, err := mail.NewSMTPTransport("smtp://mail.example", "nobody"); err == nil {
		t.Errorf("bad sender: got no error")
	}
}

func TestNewTransport(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))

	t.Run("LogWithoutSMTP", func(t *testing.T) {
		tr, err := mail.NewTransport("", "shop@pixel.example", log)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tr.(*mail.LogTransport); !ok {
			t.Fatalf("got %T, want *mail.LogTransport", tr)
		}
		if err := tr.Send(context.Background(), mail.Message{ID: 5, To: "zoe@example.com", Subject: "Ready", Body: "KEY-XYZ"}); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"zoe@example.com", "Ready", "KEY-XYZ", "storefront-outbox-5@pixel.example"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("log lacks %q: %s", want, buf.String())
			}
		}
	})

	t.Run("SMTP", func(t *testing.T) {
		tr, err := mail.NewTransport("smtp://mail.example:25", "shop@pixel.example", log)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := tr.(*mail.SMTPTransport); !ok {
			t.Fatalf("got %T, want *mail.SMTPTransport", tr)
		}
	})
}
