package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"

	"kguest.dev/tests/extender-e2e/harness"
)

// harnessTB is the small testing.TB-like value StartTestServer wants
// (k8s.io/kubernetes/test/utils/ktesting.TB), outside a Go test: its log goes
// to a file, a fatal call panics with fatalError (recovered by startCluster),
// and cleanups run, newest first, when the cluster stops.
type harnessTB struct {
	mu       sync.Mutex
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
func (t *harnessTB) Helper() {}

// Attr and Chdir complete 1.37's ktesting.TB (testing.TB's newer methods).
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
func (t *harnessTB) Name() string { return "extender-e2e" }
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

// cluster is etcd (embedded) and a kube-apiserver (StartTestServer), both on
// 127.0.0.1, with a kubeconfig file for the scheduler.
type cluster struct {
	dir        string
	logPath    string
	kubeconfig string
	config     *rest.Config
	client     kubernetes.Interface
	etcd       *embed.Etcd
	server     apiservertesting.TestServer
	tb         *harnessTB
	logFile    *os.File
}

// startAPIServer starts etcd and the API server under dir; their logs go to
// dir/cluster.log.
func startAPIServer(dir string) (c *cluster, err error) {
	c = &cluster{dir: dir, logPath: filepath.Join(dir, "cluster.log")}
	c.logFile, err = os.Create(c.logPath)
	if err != nil {
		return nil, err
	}
	// klog (the API server's and etcd client's logs) to the file only.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := klogFlags.Set(name, value); err != nil {
			return nil, err
		}
	}
	klog.SetOutput(c.logFile)
	c.tb = &harnessTB{log: c.logFile, dir: dir}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fatalError)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("starting the API server: %s", f.msg)
		}
		if err != nil {
			c.stop()
			c = nil
		}
	}()

	if err := c.startEtcd(); err != nil {
		return c, err
	}
	storage := storagebackend.NewDefaultConfig("/registry", nil)
	storage.Transport.ServerList = []string{c.etcd.Clients[0].Addr().String()}
	storage.Transport.ServerList[0] = "http://" + storage.Transport.ServerList[0]
	// Flags as scheduler_perf's in-process API server uses them: no
	// controller-manager runs, so no admission plugin may wait for one.
	flags := []string{
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,Priority",
		// RBAC only, so deploy/extender/rbac.yaml is what lets the
		// extender in (the default is AlwaysAllow).
		"--authorization-mode=RBAC",
	}
	c.server, err = apiservertesting.StartTestServer(c.tb, apiservertesting.NewDefaultTestServerOptions(), flags, storage)
	if err != nil {
		return c, fmt.Errorf("starting the API server: %w", err)
	}
	c.config = rest.CopyConfig(c.server.ClientConfig)
	c.config.QPS = 5000
	c.config.Burst = 5000
	c.client, err = kubernetes.NewForConfig(c.config)
	if err != nil {
		return c, err
	}
	c.kubeconfig = filepath.Join(dir, "kubeconfig")
	return c, harness.WriteKubeconfig(c.config, c.kubeconfig)
}

func (c *cluster) startEtcd() error {
	clientPort, err := harness.FreePort()
	if err != nil {
		return err
	}
	peerPort, err := harness.FreePort()
	if err != nil {
		return err
	}
	cfg := embed.NewConfig()
	cfg.Name = "extender-e2e"
	cfg.Dir = filepath.Join(c.dir, "etcd")
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{filepath.Join(c.dir, "etcd.log")}
	clientURL, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(clientPort))
	peerURL, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(peerPort))
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	c.etcd = e
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("etcd: %w", err)
	case <-time.After(60 * time.Second):
		return errors.New("etcd did not become ready in 60 s")
	}
}

func (c *cluster) stop() {
	if c.server.TearDownFn != nil {
		c.server.TearDownFn()
	}
	if c.tb != nil {
		c.tb.runCleanups()
	}
	if c.etcd != nil {
		c.etcd.Close()
	}
	if c.logFile != nil {
		klog.Flush()
		_ = c.logFile.Sync()
	}
}

// startCluster is startAPIServer as the harness takes it.
func startCluster(dir string) (*harness.Cluster, error) {
	c, err := startAPIServer(dir)
	if err != nil {
		return nil, err
	}
	return &harness.Cluster{Client: c.client, Config: c.config, Kubeconfig: c.kubeconfig, Stop: c.stop}, nil
}
