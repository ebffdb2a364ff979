package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"kguest.dev/tests/extender-e2e/harness"
	"kguest.dev/tests/extender-e2e/harness/loopback"
)

// perfOptions are the flags of the `perf` subcommand; the defaults are the
// cluster shape of KSW's scheduler_perf config (500 nodes, 500 initial pods,
// 1,000 measured pods).
type perfOptions struct {
	nodes, initPods, measuredPods int
	rounds                        int
	plugins                       string // the example plugins (cargo xtask examples)
	ksw                           string // KSW's material at 9b2791f (proto-vendor/ksw)
	only                          string // run only the variants whose name contains this
	cpuProfiles                   string // write each measured scheduler's CPU profile here
}

// perfVariant is one scheduler configuration timed by `perf`.
type perfVariant struct {
	name    string
	profile string // the profile's plugins section ("" = the default profile)
}

const perfSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: 5000
  burst: 5000
leaderElection:
  leaderElect: false
profiles:
- schedulerName: default-scheduler
%s`

// wasmProfile is KSW's scheduler_perf "WasmOnly" shape: the default plugins
// plus wasm plugins under multiPoint, each with its guestURL.
func wasmProfile(plugins ...[2]string) string {
	var b strings.Builder
	b.WriteString("  plugins:\n    multiPoint:\n      enabled:\n")
	for _, p := range plugins {
		fmt.Fprintf(&b, "      - name: %s\n", p[0])
	}
	b.WriteString("  pluginConfig:\n")
	for _, p := range plugins {
		fmt.Fprintf(&b, "  - name: %s\n    args:\n      guestURL: file://%s\n", p[0], p[1])
	}
	return b.String()
}

// perfVariants are the configurations `perf` times, in order.
func perfVariants(o perfOptions) ([]perfVariant, error) {
	kguestNodeNumber := filepath.Join(o.plugins, "nodenumber.wasm")
	kguestFit := filepath.Join(o.plugins, "fit.wasm")
	// The TinyGo build KSW's scheduler_perf measured (no events), and
	// upstream's example, which records an event per PreScore as kguest's
	// port does.
	tinyGoNodeNumber := filepath.Join(o.ksw, "internal", "e2e", "scheduler_perf", "wasm", "nodenumber", "main.wasm")
	tinyGoExample := filepath.Join(o.ksw, "examples", "nodenumber", "main.wasm")
	for _, f := range []string{kguestNodeNumber, kguestFit, tinyGoNodeNumber, tinyGoExample} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("missing %s (cargo xtask examples; cargo xtask vendor ksw)", f)
		}
	}
	return []perfVariant{
		{name: "default", profile: ""},
		// As KSW's scheduler_perf "PluginOnly" case: the default plugins
		// plus the native plugin under multiPoint.
		{name: "native NodeNumber", profile: `  plugins:
    multiPoint:
      enabled:
      - name: NodeNumber
`},
		{name: "KSW + TinyGo nodenumber", profile: wasmProfile([2]string{"wasm", tinyGoNodeNumber})},
		{name: "KSW + TinyGo nodenumber+events", profile: wasmProfile([2]string{"wasm", tinyGoExample})},
		{name: "KSW + kguest nodenumber", profile: wasmProfile([2]string{"wasm", kguestNodeNumber})},
		{name: "KSW + kguest fit, nodenumber", profile: wasmProfile([2]string{"fit", kguestFit}, [2]string{"wasm", kguestNodeNumber})},
	}, nil
}

// runPerf is the `perf` subcommand: every variant timed by
// loopback.Throughput on the same nodes, all in one process, the rounds
// interleaved; per variant the median of the rounds, with their range.
func runPerf(opts perfOptions) error {
	dir, err := os.MkdirTemp("", "ksw-e2e-perf-")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if ok {
			os.RemoveAll(dir)
		} else {
			fmt.Fprintf(os.Stderr, "ksw-e2e: logs kept in %s\n", dir)
		}
	}()
	started := time.Now()
	c, err := loopback.Start(dir, "ksw-e2e")
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Printf("cluster up in %.1f s\n", time.Since(started).Seconds())
	ctx := context.Background()
	var nodes []*v1.Node
	for i := 0; i < opts.nodes; i++ {
		nodes = append(nodes, loopback.TestNode(fmt.Sprintf("node-%d", i)))
	}
	if err := loopback.CreateNodes(ctx, c.Client, nodes); err != nil {
		return err
	}
	all, err := perfVariants(opts)
	if err != nil {
		return err
	}
	var variants []loopback.Variant
	for _, v := range all {
		if strings.Contains(v.name, opts.only) {
			config := fmt.Sprintf(perfSchedulerConfig, c.Kubeconfig, v.profile)
			variants = append(variants, loopback.Variant{Name: v.name, Config: []byte(config)})
		}
	}
	fmt.Printf("throughput run: %d nodes, %d initial pods, %d measured pods, %d round(s)\n", opts.nodes, opts.initPods, opts.measuredPods, opts.rounds)
	t := loopback.Throughput{Cluster: c, Dir: dir, InitPods: opts.initPods, MeasuredPods: opts.measuredPods, Rounds: opts.rounds, Verbosity: 1, CPUProfiles: opts.cpuProfiles}
	results, err := t.Run(ctx, variants, func(round int, v loopback.Variant, r loopback.Result) {
		fmt.Printf("  round %d %-32s %8.1f pods/s (%d pods bound in %.2f s)\n", round+1, v.Name, r.PodsPer, opts.measuredPods, r.Seconds)
	})
	if err != nil {
		return err
	}
	base := loopback.Median(results["default"])
	native := loopback.Median(results["native NodeNumber"])
	tinyGo := loopback.Median(results["KSW + TinyGo nodenumber"])
	for _, v := range variants {
		m := loopback.Median(results[v.Name])
		lo, hi := loopback.Spread(results[v.Name])
		fmt.Printf("throughput %-32s %7.1f pods/s (rounds %.0f-%.0f)  %5.2fx default  %5.2fx native NodeNumber  %5.2fx KSW + TinyGo\n", v.Name+":", m, lo, hi, m/base, m/native, m/tinyGo)
	}
	ok = true
	return nil
}

// kswPerfVariants are the extender perf's variants through KSW's wasm
// plugin on this release (harness.Release.KSW): upstream's TinyGo
// nodenumber (the build behind KSW's published figures) and kguest's, in
// KSW's "WasmOnly" shape, so their ratios to kguest-extender come from the
// same run.
func kswPerfVariants(ksw, plugins, kubeconfig string) ([]loopback.Variant, error) {
	tinyGo := filepath.Join(ksw, "internal", "e2e", "scheduler_perf", "wasm", "nodenumber", "main.wasm")
	kguest := filepath.Join(plugins, "nodenumber.wasm")
	for _, f := range []string{tinyGo, kguest} {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("missing %s (cargo xtask examples; cargo xtask vendor ksw)", f)
		}
	}
	variant := func(name, guest string) loopback.Variant {
		config := fmt.Sprintf(perfSchedulerConfig, kubeconfig, wasmProfile([2]string{"wasm", guest}))
		return loopback.Variant{Name: name, Config: []byte(config)}
	}
	return []loopback.Variant{
		variant(harness.VariantKSWTinyGo, tinyGo),
		variant("+ KSW + kguest nodenumber", kguest),
	}, nil
}
