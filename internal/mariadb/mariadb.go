// Package mariadb runs a private MariaDB server in a data folder: the database the
// program uses when no STOREFRONT_DSN is given, and the one tests use when the
// environment names none.
package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// ErrNotInstalled is returned when mariadbd cannot be found.
var ErrNotInstalled = errors.New("mariadbd is not installed: run `sudo apt-get install -y mariadb-server`")

// Server is a running private mariadbd.
type Server struct {
	Dir    string
	Socket string
	// Port is the TCP port on 127.0.0.1, or 0 when the server listens on its socket only.
	Port int
	cmd  *exec.Cmd
	done chan error
}

// lookPath finds a MariaDB program on PATH or in the sbin folders Debian installs it to.
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", ErrNotInstalled
}

// Installed reports whether mariadbd is available.
func Installed() bool {
	_, err := lookPath("mariadbd")
	return err == nil
}

// Options are settings of a private server beyond the defaults, for tests that need
// a primary and a replica: a TCP port, a server id and a binary log.
type Options struct {
	// Port, when not 0, makes the server listen on 127.0.0.1:Port as well as on its
	// socket (a replica connects to its primary over TCP).
	Port int
	// ServerID is the replication server id (0: the server's default).
	ServerID int
	// LogBin turns the binary log on (row format), which a primary needs.
	LogBin bool
	// Args are further mariadbd options, such as "--read-only".
	Args []string
}

// Start initialises dir on first use and runs mariadbd on a unix socket inside it,
// returning once the server answers. The server listens on no TCP port.
func Start(ctx context.Context, dir string) (*Server, error) {
	return StartWith(ctx, dir, Options{})
}

// StartWith is Start with options.
func StartWith(ctx context.Context, dir string, opt Options) (*Server, error) {
	mariadbd, err := lookPath("mariadbd")
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	u, err := user.Current()
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	// A temporary folder of its own: servers (and the bootstrap server of
	// mariadb-install-db) sharing /tmp collide on their temporary tables' names, and
	// one of several installs run at once then fails with "Unknown table
	// 'mysql.tmp_user_sys'".
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("create temporary folder: %w", err)
	}
	if _, err := os.Stat(filepath.Join(data, "mysql")); errors.Is(err, os.ErrNotExist) {
		install, err := lookPath("mariadb-install-db")
		if err != nil {
			return nil, err
		}
		_ = os.RemoveAll(data)
		cmd := exec.CommandContext(ctx, install, "--no-defaults", "--datadir="+data, "--tmpdir="+tmp, "--user="+u.Username,
			"--auth-root-authentication-method=normal", "--skip-test-db")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("mariadb-install-db: %v: %s", err, installProblem(string(out)))
		}
	}
	socket := filepath.Join(dir, "mysqld.sock")
	pidFile := filepath.Join(dir, "mysqld.pid")
	stopStale(pidFile)
	logFile := filepath.Join(dir, "err.log")
	args := []string{"--no-defaults", "--datadir=" + data, "--user=" + u.Username,
		"--socket=" + socket, "--pid-file=" + pidFile, "--log-error=" + logFile, "--tmpdir=" + tmp,
		"--skip-name-resolve", "--character-set-server=utf8mb4", "--collation-server=utf8mb4_unicode_ci",
		"--innodb-buffer-pool-size=256M", "--innodb-flush-log-at-trx-commit=2",
		"--max-connections=500"}
	if opt.Port != 0 {
		args = append(args, "--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", opt.Port))
	} else {
		args = append(args, "--skip-networking")
	}
	if opt.ServerID != 0 {
		args = append(args, fmt.Sprintf("--server-id=%d", opt.ServerID))
	}
	if opt.LogBin {
		args = append(args, "--log-bin="+filepath.Join(data, "binlog"), "--binlog-format=ROW")
	} else {
		args = append(args, "--skip-log-bin")
	}
	args = append(args, opt.Args...)
	cmd := exec.Command(mariadbd, args...)
	// Its own process group, so that a Ctrl-C in the terminal reaches the program,
	// which then stops the database cleanly, rather than killing both at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start mariadbd: %w", err)
	}
	s := &Server{Dir: dir, Socket: socket, Port: opt.Port, cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()

	deadline := time.Now().Add(60 * time.Second)
	for {
		db, err := sql.Open("mysql", s.DSN(""))
		if err == nil {
			err = db.PingContext(ctx)
			db.Close()
		}
		if err == nil {
			return s, nil
		}
		select {
		case werr := <-s.done:
			b, _ := os.ReadFile(logFile)
			return nil, fmt.Errorf("mariadbd exited (%v): %s", werr, lastLines(string(b), 5))
		case <-ctx.Done():
			s.Stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("mariadbd did not answer within 60s; see %s", logFile)
		}
	}
}

// DSN returns a go-sql-driver DSN for the database name (empty for none) as root.
func (s *Server) DSN(database string) string {
	cfg := mysql.NewConfig()
	cfg.User = "root"
	cfg.Net = "unix"
	cfg.Addr = s.Socket
	cfg.DBName = database
	return cfg.FormatDSN()
}

// Stop shuts the server down cleanly (SIGTERM, then waits up to 30 s before SIGKILL).
func (s *Server) Stop() error {
	if s == nil || s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		return errors.New("mariadbd did not stop within 30s and was killed")
	}
}

// stopStale ends a mariadbd left running on this folder by a process that died
// without stopping it, so that the new one can take the data files.
func stopStale(pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	var pid int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d", &pid); err != nil || pid <= 0 {
		return
	}
	p, err := os.FindProcess(pid)
	if err != nil || p.Signal(syscall.Signal(0)) != nil {
		return
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if !strings.Contains(exe, "mariadbd") && !strings.Contains(exe, "mysqld") {
		return
	}
	_ = p.Signal(syscall.SIGTERM)
	for i := 0; i < 300; i++ {
		if p.Signal(syscall.Signal(0)) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// installProblem picks the lines of mariadb-install-db's output that say what went
// wrong (its ERROR and Warning lines), else its first lines: the last ones are always
// the same advice.
func installProblem(out string) string {
	var picked []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "[Warning]") || strings.Contains(l, "failed") {
			picked = append(picked, strings.TrimSpace(l))
		}
	}
	if len(picked) == 0 {
		return firstLines(out, 5)
	}
	return strings.Join(picked, " | ")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
