package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// schedulerProcess is the real kube-scheduler, run as a child process of
// the harness binary (`<harness> kube-scheduler --config FILE`).
type schedulerProcess struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	err     error
}

func startScheduler(dir, name string, config []byte) (*schedulerProcess, error) {
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
	cmd := exec.Command(self, "kube-scheduler", "--config="+configPath, "--secure-port=0", "--v=2")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting kube-scheduler %s: %w", name, err)
	}
	p := &schedulerProcess{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *schedulerProcess) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("kube-scheduler %s exited (%v); its log: %s", p.name, p.err, p.logPath)
	default:
		return nil
	}
}

func (p *schedulerProcess) stop() {
	if p.exited() != nil {
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
