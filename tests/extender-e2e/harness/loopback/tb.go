package loopback

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// harnessTB is the small testing.TB-like value StartTestServer wants
// (k8s.io/kubernetes/test/utils/ktesting.TB), outside a Go test: its log goes
// to a file, a fatal call panics with fatalError (recovered by Start), and
// cleanups run, newest first, when the cluster stops. It has the methods of
// both releases' ktesting.TB (1.37 added Attr and Chdir).
type harnessTB struct {
	mu       sync.Mutex
	name     string
	log      io.Writer
	dir      string
	failed   bool
	cleanups []func()
}

type fatalError struct{ msg string }

func (t *harnessTB) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}
func (t *harnessTB) Error(args ...any) { t.Log(args...); t.Fail() }
func (t *harnessTB) Errorf(format string, args ...any) {
	t.Logf(format, args...)
	t.Fail()
}
func (t *harnessTB) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}
func (t *harnessTB) FailNow() { t.Fail(); panic(fatalError{"FailNow"}) }
func (t *harnessTB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}
func (t *harnessTB) Fatal(args ...any) { t.Fail(); panic(fatalError{fmt.Sprint(args...)}) }
func (t *harnessTB) Fatalf(format string, args ...any) {
	t.Fail()
	panic(fatalError{fmt.Sprintf(format, args...)})
}
func (t *harnessTB) Helper()                {}
func (t *harnessTB) Attr(key, value string) { t.Logf("attr %s=%s", key, value) }
func (t *harnessTB) Chdir(dir string)       { t.Fatalf("Chdir(%q): not supported outside a Go test", dir) }
func (t *harnessTB) Log(args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintln(t.log, args...)
}
func (t *harnessTB) Logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.log, format+"\n", args...)
}
func (t *harnessTB) Name() string { return t.name }
func (t *harnessTB) Setenv(key, value string) {
	prev, had := os.LookupEnv(key)
	_ = os.Setenv(key, value)
	t.Cleanup(func() {
		if had {
			_ = os.Setenv(key, prev)
		} else {
			_ = os.Unsetenv(key)
		}
	})
}
func (t *harnessTB) Skip(args ...any) { t.Fatal(append([]any{"skip: "}, args...)...) }
func (t *harnessTB) SkipNow()         { t.Fatal("skip") }
func (t *harnessTB) Skipf(format string, args ...any) {
	t.Fatalf("skip: "+format, args...)
}
func (t *harnessTB) Skipped() bool { return false }
func (t *harnessTB) TempDir() string {
	dir, err := os.MkdirTemp(t.dir, "tb-")
	if err != nil {
		t.Fatalf("TempDir: %v", err)
	}
	return dir
}

func (t *harnessTB) runCleanups() {
	for {
		t.mu.Lock()
		n := len(t.cleanups)
		if n == 0 {
			t.mu.Unlock()
			return
		}
		f := t.cleanups[n-1]
		t.cleanups = t.cleanups[:n-1]
		t.mu.Unlock()
		f()
	}
}
