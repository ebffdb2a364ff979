package main

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/kubernetes/cmd/kube-scheduler/app"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	configscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	wasm "sigs.k8s.io/kube-scheduler-wasm-extension/scheduler/plugin"

	"kguest.dev/tests/extender-e2e/harness/loopback"
	"kguest.dev/tests/extender-e2e/harness/nodenumber"
)

// runKubeScheduler is the `kube-scheduler` subcommand: the real
// kube-scheduler command of k8s.io/kubernetes v1.33.4 with out-of-tree
// plugins registered as kube-scheduler-wasm-extension's cmd/scheduler
// registers them: one wasm.PluginFactory(name) per wasm plugin its --config
// file enables (wasmPluginNames), beside our native NodeNumber.
func runKubeScheduler(args []string) error {
	// A CPU profile of this scheduler, from start to its orderly exit, when
	// `perf --cpuprofile DIR` asks for one.
	stopProfile, err := loopback.ProfileCPU()
	if err != nil {
		return err
	}
	defer stopProfile()
	opts := []app.Option{app.WithPlugin(nodenumber.Name, newNativeNodeNumber)}
	names, err := wasmPluginNames(args)
	if err != nil {
		return err
	}
	for _, name := range names {
		opts = append(opts, app.WithPlugin(name, wasm.PluginFactory(name)))
	}
	cmd := app.NewSchedulerCommand(opts...)
	cmd.SetArgs(args)
	err = cmd.Execute()
	// It returns once SIGTERM stopped it: the extender's perf reads its
	// counters.
	if werr := loopback.WriteMetrics(); werr != nil && err == nil {
		err = werr
	}
	return err
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
