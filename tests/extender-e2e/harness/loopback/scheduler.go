package loopback

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Scheduler is the real kube-scheduler, run as a child process of the
// harness binary (`<harness> kube-scheduler --config FILE`).
type Scheduler struct {
	name    string
	cmd     *exec.Cmd
	LogPath string
	done    chan struct{} // closed when the process has ended
	err     error         // its exit, once done is closed
}

// StartScheduler writes config to dir and starts the scheduler with it, at
// log verbosity v, with args added to its command line and env to this
// process's environment.
func StartScheduler(dir, name string, config []byte, v int, args []string, env ...string) (*Scheduler, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	configPath := filepath.Join(dir, "scheduler-"+name+".yaml")
	if err := os.WriteFile(configPath, config, 0o644); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "scheduler-"+name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{"kube-scheduler", "--config=" + configPath, "--secure-port=0", "--v=" + strconv.Itoa(v)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting kube-scheduler %s: %w", name, err)
	}
	p := &Scheduler{name: name, cmd: cmd, LogPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Exited reports the scheduler's exit if it has already ended.
func (p *Scheduler) Exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("kube-scheduler %s exited (%v); its log: %s", p.name, p.err, p.LogPath)
	default:
		return nil
	}
}

// Stop ends it with SIGTERM, then SIGKILL after 20 s.
func (p *Scheduler) Stop() {
	if p.Exited() != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}
