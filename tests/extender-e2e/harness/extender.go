package harness

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
)

// extenderProcess is `kguest-extender serve` as its own process, with mTLS
// and the node cache fed by the API server under its service account.
type extenderProcess struct {
	args    []string
	bin     string
	port    int
	logPath string
	files   *tlsFiles
	cmd     *exec.Cmd
	done    chan struct{}
	err     error
	starts  int
}

func newExtender(bin, dir, profile, kubeconfig string, port int, files *tlsFiles) *extenderProcess {
	return &extenderProcess{
		bin:     bin,
		port:    port,
		files:   files,
		logPath: filepath.Join(dir, "extender.log"),
		args: []string{"serve",
			"--config=" + profile,
			"--listen=127.0.0.1:" + strconv.Itoa(port),
			"--tls-cert=" + files.serverCert,
			"--tls-key=" + files.serverKey,
			"--client-ca=" + files.clientCA,
			"--kubeconfig=" + kubeconfig,
			"--log-format=text",
		},
	}
}

// start runs the process (again, after kill) and waits until /readyz
// answers 200 (its node cache has synced).
func (e *extenderProcess) start() error {
	log, err := os.OpenFile(e.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	e.starts++
	fmt.Fprintf(log, "=== start %d: %s %v\n", e.starts, e.bin, e.args)
	cmd := exec.Command(e.bin, e.args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("starting %s: %w", e.bin, err)
	}
	e.cmd, e.done, e.err = cmd, make(chan struct{}), nil
	go func(done chan struct{}) {
		e.err = cmd.Wait()
		log.Close()
		close(done)
	}(e.done)
	deadline := time.Now().Add(90 * time.Second)
	for {
		if err := e.exited(); err != nil {
			return err
		}
		status, _, err := e.get("/readyz")
		if err == nil && status == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kguest-extender not ready after 90 s (last: %d %v); its log: %s", status, err, e.logPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (e *extenderProcess) exited() error {
	select {
	case <-e.done:
		return fmt.Errorf("kguest-extender exited (%v); its log: %s", e.err, e.logPath)
	default:
		return nil
	}
}

// kill ends the process at once (SIGKILL: no graceful shutdown), as a
// crash or an evicted pod would.
func (e *extenderProcess) kill() {
	if e.exited() != nil {
		return
	}
	_ = e.cmd.Process.Kill()
	<-e.done
}

// stop ends it with SIGTERM (graceful shutdown), then SIGKILL.
func (e *extenderProcess) stop() {
	if e.cmd == nil || e.exited() != nil {
		return
	}
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-e.done:
	case <-time.After(10 * time.Second):
		e.kill()
	}
}

// client is an HTTPS client holding kube-scheduler's client certificate.
func (e *extenderProcess) client() (*http.Client, error) {
	cert, err := tls.LoadX509KeyPair(e.files.clientCert, e.files.clientKey)
	if err != nil {
		return nil, err
	}
	caPEM, err := os.ReadFile(e.files.serverCA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{
			Certificates: []tls.Certificate{cert},
			RootCAs:      pool,
		}},
	}, nil
}

// cpuSeconds is the CPU time (user and system) the running process has
// used, from /proc/PID/stat.
func (e *extenderProcess) cpuSeconds() (float64, error) {
	if e.cmd == nil || e.cmd.Process == nil {
		return 0, fmt.Errorf("kguest-extender is not running")
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name (in parentheses): utime and stime are
	// the 14th and 15th of the line, in clock ticks (USER_HZ, 100 on Linux).
	rest := stat[bytes.LastIndexByte(stat, ')')+2:]
	fields := strings.Fields(string(rest))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", e.cmd.Process.Pid)
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q, stime %q", e.cmd.Process.Pid, fields[11], fields[12])
	}
	return (utime + stime) / 100, nil
}

func (e *extenderProcess) url(path string) string {
	return fmt.Sprintf("https://127.0.0.1:%d%s", e.port, path)
}

func (e *extenderProcess) get(path string) (int, []byte, error) {
	c, err := e.client()
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.Get(e.url(path))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// filterResult is the extender API's ExtenderFilterResult, as far as the
// probe reads it.
type filterResult struct {
	NodeNames                  *[]string         `json:"NodeNames"`
	FailedNodes                map[string]string `json:"FailedNodes"`
	FailedAndUnresolvableNodes map[string]string `json:"FailedAndUnresolvableNodes"`
	Error                      string            `json:"Error"`
}

// filter sends one filter request by node names (nodeCacheCapable), as
// kube-scheduler would, and returns the extender's answer.
func (e *extenderProcess) filter(pod *v1.Pod, nodeNames []string) (*filterResult, error) {
	body, err := json.Marshal(map[string]any{"Pod": pod, "NodeNames": nodeNames})
	if err != nil {
		return nil, err
	}
	c, err := e.client()
	if err != nil {
		return nil, err
	}
	resp, err := c.Post(e.url("/filter"), "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("filter: %s: %s", resp.Status, out)
	}
	var r filterResult
	if err := json.Unmarshal(out, &r); err != nil {
		return nil, fmt.Errorf("filter answer %s: %w", out, err)
	}
	return &r, nil
}
