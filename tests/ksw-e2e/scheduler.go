package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// runKubeScheduler is the `kube-scheduler` subcommand: the real
// kube-scheduler command of k8s.io/kubernetes v1.33.4, with out-of-tree
// plugins registered the way kube-scheduler-wasm-extension's cmd/scheduler
// registers its wasm plugin (app.NewSchedulerCommand(app.WithPlugin(...))).
// Only our native NodeNumber is registered: the KSW module (whose
// wasm.PluginFactory would be the second WithPlugin) is refused by the Go
// module proxy (see README.md).
func runKubeScheduler(args []string) error {
	cmd := app.NewSchedulerCommand(
		app.WithPlugin(nativeNodeNumberName, newNativeNodeNumber),
	)
	cmd.SetArgs(args)
	return cmd.Execute()
}

// schedulerProcess is a kube-scheduler started as a child process of this
// binary (`ksw-e2e kube-scheduler --config FILE`).
type schedulerProcess struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has ended
	err     error         // its exit, once done is closed
}

func startScheduler(dir, name, config string) (*schedulerProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	configPath := filepath.Join(dir, "scheduler-"+name+".yaml")
	if err := os.WriteFile(configPath, []byte(config), 0o644); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "scheduler-"+name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "kube-scheduler", "--config="+configPath, "--secure-port=0", "--v=1")
	cmd.Stdout = logFile
	cmd.Stderr = logFile
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

// exited reports the scheduler's exit if it has already ended.
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
