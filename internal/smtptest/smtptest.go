// Package smtptest runs a real SMTP server in-process for tests: it accepts mail on
// 127.0.0.1, records and parses what it receives, and can be stopped, restarted,
// slowed down and told to refuse. StartTLS runs one that speaks TLS (implicit or via
// STARTTLS) with a generated certificate and wants AUTH PLAIN.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message accepted by the test SMTP server, parsed.
type Message struct {
	// User is the name the client authenticated with, if it did.
	User      string
	From, To  string
	Subject   string
	MessageID string
	Header    netmail.Header
	Body      string
}

// Server is an in-process SMTP server on 127.0.0.1 that records what it accepts.
// It can be stopped and started again on the same address, and told to refuse.
type Server struct {
	t    testing.TB
	addr string
	// tls, when set, makes the server speak TLS from the first byte (smtps), or offer
	// STARTTLS when starttls is set.
	tls      *tls.Config
	starttls bool
	// user and pass, when set, are the only credentials AUTH PLAIN accepts.
	user, pass string

	mu       sync.Mutex
	srv      *smtp.Server
	ln       net.Listener
	msgs     []Message
	dataErr  *smtp.SMTPError // answer to DATA, when set
	rcptErr  *smtp.SMTPError // answer to RCPT, when set
	delay    time.Duration   // before accepting DATA
	attempts int             // DATA commands seen
}

// Start runs a server on 127.0.0.1 for the test; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t}
	s.start("127.0.0.1:0")
	t.Cleanup(s.Stop)
	return s
}

func (s *Server) start(addr string) {
	s.t.Helper()
	var ln net.Listener
	var err error
	// The port was just closed; binding it again may take a moment.
	for range 50 {
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("listen: %v", err)
	}
	if s.tls != nil && !s.starttls {
		ln = tls.NewListener(ln, s.tls)
	}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		if s.user != "" {
			return &authSession{session: &session{s: s}}, nil
		}
		return &session{s: s}, nil
	}))
	srv.Domain = "localhost"
	if s.starttls {
		srv.TLSConfig = s.tls
	}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	s.mu.Lock()
	s.srv, s.ln, s.addr = srv, ln, ln.Addr().String()
	s.mu.Unlock()
	go srv.Serve(ln)
}

// StartTLS runs a server for the test that speaks TLS from the first byte (or, with
// starttls, offers STARTTLS) and wants AUTH PLAIN with user and pass, which it takes
// only over TLS. Its certificate is generated for 127.0.0.1; the returned TLS settings
// are what a client needs to trust it. The server stops when the test ends.
func StartTLS(t testing.TB, user, pass string, starttls bool) (*Server, *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	s := &Server{t: t, user: user, pass: pass, starttls: starttls,
		tls: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}}
	s.start("127.0.0.1:0")
	t.Cleanup(s.Stop)
	return s, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// Stop closes the server; Restart opens it again on the same address.
func (s *Server) Stop() {
	s.mu.Lock()
	srv, ln := s.srv, s.ln
	s.srv, s.ln = nil, nil
	s.mu.Unlock()
	if srv != nil {
		// The listener is closed too: right after start, Serve may not have taken
		// it yet, and Close closes only the listeners Serve took.
		_ = ln.Close()
		_ = srv.Close()
	}
}

// Restart starts the server again on its old address.
func (s *Server) Restart() { s.start(s.Addr()) }

// Addr is the host:port the server listens on.
func (s *Server) Addr() string { s.mu.Lock(); defer s.mu.Unlock(); return s.addr }

// URL is the STOREFRONT_SMTP_URL of the server, without credentials: smtps:// for a
// server that speaks TLS from the first byte, smtp:// otherwise.
func (s *Server) URL() string {
	if s.tls != nil && !s.starttls {
		return "smtps://" + s.Addr()
	}
	return "smtp://" + s.Addr()
}

// SetDelay makes the server wait d before accepting each message's DATA.
func (s *Server) SetDelay(d time.Duration) { s.mu.Lock(); s.delay = d; s.mu.Unlock() }

// Attempts is the number of DATA commands the server has seen, refused ones included.
func (s *Server) Attempts() int { s.mu.Lock(); defer s.mu.Unlock(); return s.attempts }

// RefuseData makes DATA answer e (nil: accept again).
func (s *Server) RefuseData(e *smtp.SMTPError) { s.mu.Lock(); s.dataErr = e; s.mu.Unlock() }

// RefuseRcpt makes RCPT answer e (nil: accept again).
func (s *Server) RefuseRcpt(e *smtp.SMTPError) { s.mu.Lock(); s.rcptErr = e; s.mu.Unlock() }

// Messages returns a copy of what the server accepted.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

type session struct {
	s              *Server
	user, from, to string
}

// authSession is a session that offers AUTH PLAIN and wants it before MAIL.
type authSession struct{ *session }

func (a *authSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (a *authSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != a.s.user || pass != a.s.pass {
			return smtp.ErrAuthFailed
		}
		a.user = user
		return nil
	}), nil
}

func (a *authSession) Mail(from string, opts *smtp.MailOptions) error {
	if a.user == "" {
		return smtp.ErrAuthRequired
	}
	return a.session.Mail(from, opts)
}

func (ss *session) Reset()        { ss.from, ss.to = "", "" }
func (ss *session) Logout() error { return nil }
func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	if ss.s.rcptErr != nil {
		return ss.s.rcptErr
	}
	ss.to = to
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.s.mu.Lock()
	ss.s.attempts++
	derr, delay := ss.s.dataErr, ss.s.delay
	ss.s.mu.Unlock()
	if derr != nil {
		return derr
	}
	time.Sleep(delay)
	msg, err := ParseMessage(raw)
	if err != nil {
		return err
	}
	msg.User, msg.From, msg.To = ss.user, ss.from, ss.to
	ss.s.mu.Lock()
	ss.s.msgs = append(ss.s.msgs, msg)
	ss.s.mu.Unlock()
	return nil
}

// ParseMessage reads the headers and the decoded plain-text body of a message.
func ParseMessage(raw []byte) (Message, error) {
	m, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if err != nil {
		return Message{}, err
	}
	var body io.Reader = m.Body
	switch strings.ToLower(m.Header.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		body = quotedprintable.NewReader(m.Body)
	case "", "7bit", "8bit":
	default:
		return Message{}, errors.New("unexpected transfer encoding " + m.Header.Get("Content-Transfer-Encoding"))
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return Message{}, err
	}
	return Message{
		Subject:   subject,
		MessageID: m.Header.Get("Message-Id"),
		Header:    m.Header,
		Body:      strings.ReplaceAll(string(b), "\r\n", "\n"),
	}, nil
}

// Wait returns the accepted messages once there are at least n, failing the test when
// they have not arrived within d.
func (s *Server) Wait(n int, d time.Duration) []Message {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for {
		msgs := s.Messages()
		if len(msgs) >= n {
			return msgs
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("SMTP server: %d messages after %v, want %d", len(msgs), d, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
