package device

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"setmatch/config"
	"setmatch/device/devicetest"
	"setmatch/device/gpio/gpiotest"
	"setmatch/internal/testutil"
)

// TestDaemonModelReplacedDuringStart: a model file replaced while the daemon
// starts, after it has read the file (reading and preparing a large model
// takes seconds on a Pi: enroll may finish meanwhile), is reloaded once
// the daemon runs, and the batches after are decided by it.
func TestDaemonModelReplacedDuringStart(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	afterLoad = func() { devicetest.WriteTinyModel(t, f.Model, true) } // alice's batches are bob's
	defer func() { afterLoad = nil }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs testutil.LockedBuffer
	done := make(chan error, 1)
	go func() { done <- Daemon(ctx, DaemonOptions{ConfigPath: f.Config, Stderr: &logs}) }()
	// The reload comes 300 ms after the change.
	testutil.WaitFor(t, 15*time.Second, "the reload of the model replaced during the start", func() bool {
		return strings.Contains(logs.String(), "msg=reloaded")
	})
	f.Drop(t, "a.npy", devicetest.Batch(rand.New(rand.NewPCG(81, 82)), "alice"))
	testutil.WaitFor(t, 15*time.Second, "a.npy decided", func() bool { return len(devicetest.ReadJournal(t, f.Journal)) == 1 })
	if got := devicetest.ReadJournal(t, f.Journal)[0].Decision; got != "bob" {
		t.Errorf("a.npy decided %q by the model read at start, want bob by the model that replaced it", got)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the daemon did not stop")
	}
}

// TestDaemonStopDuringReload: a stop that comes while a reload reads its
// files does not wait for them, and the reload, once its files are read,
// applies nothing and says nothing: the daemon has stopped.
func TestDaemonStopDuringReload(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	started, release, loaded := make(chan struct{}), make(chan struct{}), make(chan struct{})
	reloadLoading = func() { close(started); <-release }
	reloadLoaded = func() { close(loaded) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs testutil.LockedBuffer
	done := make(chan error, 1)
	go func() { done <- Daemon(ctx, DaemonOptions{ConfigPath: f.Config, Stderr: &logs}) }()
	testutil.WaitFor(t, 15*time.Second, "the daemon to start", func() bool { return strings.Contains(logs.String(), "msg=starting") })
	// A key that needs a restart: the reload warns of it when it applies.
	f.WriteConfig(t, "\n[daemon]\nwatchdog = false\n")
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(15 * time.Second):
		t.Fatal("no reload after SIGHUP")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(15 * time.Second):
		close(release)
		t.Fatal("the stop waited for the reload's files")
	}
	stopped := len(logs.String())
	close(release)
	select {
	case <-loaded:
	case <-time.After(15 * time.Second):
		t.Fatal("the reload did not end")
	}
	reloadLoading, reloadLoaded = nil, nil
	if after := logs.String()[stopped:]; after != "" {
		t.Errorf("the reload given up by the stop went on after the daemon stopped:\n%s", after)
	}
}

// gateHandler is a slog handler whose Handle of an error tells in, then
// waits on out: it holds the logging goroutine where the test wants it.
// Other records pass.
type gateHandler struct{ in, out chan struct{} }

func (h gateHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h gateHandler) Handle(_ context.Context, rec slog.Record) error {
	if rec.Level < slog.LevelError {
		return nil
	}
	h.in <- struct{}{}
	<-h.out
	return nil
}
func (h gateHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h gateHandler) WithGroup(string) slog.Handler      { return h }

// TestStopAtReloadEndWins: a stop that is waiting when a reload's load has
// ended (both ready for the wait's select, which picks either) wins: the
// reload returns false and puts nothing of what it read in use. The loop
// is held in a watchdog tick's log line (a batch stalled: not pinging)
// while the load ends and the stop comes, so that both wait for it.
func TestStopAtReloadEndWins(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	const iv = time.Millisecond
	r := stalledRunner(t, 85, iv)
	gate := gateHandler{in: make(chan struct{}), out: make(chan struct{})}
	wd := make(chan time.Time)
	d := &daemonLoop{log: slog.New(gate), r: r, out: &outputs{log: slog.New(slog.DiscardHandler)}, wd: wd, iv: iv}
	loadedCh := make(chan struct{}, 1)
	reloadLoaded = func() { loadedCh <- struct{}{} }
	defer func() { reloadLoaded = nil }()
	for i := range 12 {
		before := r.st.Load()
		stops := make(chan os.Signal, 1)
		loadGo := make(chan struct{})
		load := func() (loaded, error) {
			<-loadGo
			p, err := r.prepareReload(r.Config())
			return loaded{p: p}, err
		}
		done := make(chan bool, 1)
		go func() { done <- d.reload(context.Background(), stops, triggerSIGHUP, load) }()
		// Every step has a deadline: a reload that waits where it should
		// not fails the test rather than hanging it.
		step := func(what string, f func(deadline <-chan time.Time) bool) {
			t.Helper()
			if !f(time.After(30 * time.Second)) {
				t.Fatalf("run %d: %s took over 30 s", i, what)
			}
		}
		step("the watchdog tick", func(dl <-chan time.Time) bool {
			select {
			case wd <- time.Now(): // the loop logs that it does not ping, and is held there
				return true
			case <-dl:
				return false
			}
		})
		step("the log line", func(dl <-chan time.Time) bool {
			select {
			case <-gate.in:
				return true
			case <-dl:
				return false
			}
		})
		close(loadGo)
		step("the load", func(dl <-chan time.Time) bool {
			select {
			case <-loadedCh: // the load's result is sent
				return true
			case <-dl:
				return false
			}
		})
		stops <- syscall.SIGTERM
		gate.out <- struct{}{}
		var applied bool
		step("the reload's return", func(dl <-chan time.Time) bool {
			select {
			case applied = <-done:
				return true
			case <-dl:
				return false
			}
		})
		if applied {
			t.Fatalf("run %d: the reload went on, and was applied, past a stop that waited when its load ended", i)
		}
		if r.st.Load() != before {
			t.Fatalf("run %d: a reload given up for a stop was put in use", i)
		}
	}
}

// TestReloadConfigGone: a reload after the configuration file was moved
// away says that the daemon reads it from where it started and to put it
// back, not to give -config FILE, which fits a start only.
func TestReloadConfigGone(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	if err := os.Rename(f.Config, f.Config+".moved"); err != nil {
		t.Fatal(err)
	}
	d := &daemonLoop{configPath: f.Config}
	_, err := d.loadConfig()
	if err == nil {
		t.Fatal("reload without the configuration file: no error")
	}
	if msg := err.Error(); strings.Contains(msg, "-config FILE") || !strings.Contains(msg, f.Config) || !strings.Contains(msg, "put it back") {
		t.Errorf("reload without the configuration file: %q, want its path and to put it back", msg)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reload without the configuration file: %v, want fs.ErrNotExist", err)
	}
}

// TestReloadSaysMQTTFileRewritten: a reload after the MQTT password file
// was rewritten in place (a rotated password) warns that the publisher
// keeps the one it read at start until a restart; one with the file as it
// was says nothing of it.
func TestReloadSaysMQTTFileRewritten(t *testing.T) {
	f := devicetest.NewFixture(t, "")
	pw := filepath.Join(f.Dir, "mqtt-password")
	if err := os.WriteFile(pw, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.WriteConfig(t, "[mqtt]\nbroker = \"tcp://127.0.0.1:1\"\ntopic = \"site/door\"\nusername = \"door\"\npassword_file = \""+pw+"\"\n")
	cfg, err := config.Load(f.Config)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Config: cfg, Driver: gpiotest.NewRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out, err := startOutputs(cfg, "test", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer out.close()
	d := &daemonLoop{configPath: f.Config, r: r, out: out}
	for _, c := range []struct {
		password string
		warned   bool
	}{{"old\n", false}, {"new\n", true}} {
		if err := os.WriteFile(pw, []byte(c.password), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := d.loadConfig()
		if err != nil {
			t.Fatal(err)
		}
		w := strings.Join(l.p.warnings, "\n")
		if got := strings.Contains(w, "[mqtt] password_file: the file holds other bytes than at start, or can no longer be read, and the publisher keeps what it read then (its login and TLS): restart setmatchd to apply"); got != c.warned {
			t.Errorf("password file %q: warned %v, want %v:\n%s", c.password, got, c.warned, w)
		}
	}
}
