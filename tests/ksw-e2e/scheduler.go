package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	configscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	wasm "sigs.k8s.io/kube-scheduler-wasm-extension/scheduler/plugin"
)

// runKubeScheduler is the `kube-scheduler` subcommand: the real
// kube-scheduler command of k8s.io/kubernetes v1.33.4 with out-of-tree
// plugins registered as kube-scheduler-wasm-extension's cmd/scheduler
// registers them: one wasm.PluginFactory(name) per wasm plugin its --config
// file enables (wasmPluginNames), beside our native NodeNumber.
func runKubeScheduler(args []string) error {
	// KSW_E2E_CPUPROFILE=FILE: a CPU profile of this scheduler, from start
	// to its orderly exit (`perf --cpuprofile DIR` sets it).
	if path := os.Getenv("KSW_E2E_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	opts := []app.Option{app.WithPlugin(nativeNodeNumberName, newNativeNodeNumber)}
	names, err := wasmPluginNames(args)
	if err != nil {
		return err
	}
	for _, name := range names {
		opts = append(opts, app.WithPlugin(name, wasm.PluginFactory(name)))
	}
	cmd := app.NewSchedulerCommand(opts...)
	cmd.SetArgs(args)
	return cmd.Execute()
}

// wasmPluginNames applies KSW's cmd/scheduler rule to the --config file: per
// profile, in multiPoint order, each enabled plugin whose pluginConfig args
// decode as wasm.PluginConfig. A name enabled in two profiles is listed
// twice, as KSW lists it (kube-scheduler then refuses the second
// registration).
func wasmPluginNames(args []string) ([]string, error) {
	path := ""
	for i, a := range args {
		switch {
		case strings.HasPrefix(a, "--config="):
			path = strings.TrimPrefix(a, "--config=")
		case a == "--config" && i+1 < len(args):
			path = args[i+1]
		}
	}
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	obj, gvk, err := configscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("%s: a %v, not a KubeSchedulerConfiguration", path, gvk)
	}
	var names []string
	for _, prof := range cfg.Profiles {
		withWasmArgs := map[string]bool{}
		for _, pc := range prof.PluginConfig {
			if frameworkruntime.DecodeInto(pc.Args, &wasm.PluginConfig{}) == nil {
				withWasmArgs[pc.Name] = true
			}
		}
		for _, p := range prof.Plugins.MultiPoint.Enabled {
			if withWasmArgs[p.Name] {
				names = append(names, p.Name)
			}
		}
	}
	return names, nil
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

func startScheduler(dir, name, config string, env ...string) (*schedulerProcess, error) {
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
	cmd.Env = append(os.Environ(), env...)
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
