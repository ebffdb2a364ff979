package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// perfResult is one variant's measurement.
type perfResult struct {
	seconds float64 // first to last binding of the measured pods
	podsPer float64
}

// runPerf is the `perf` subcommand. Per variant, on the same nodes: a
// kube-scheduler binds the initial pods and stops; the measured pods are
// created while no scheduler runs; a fresh kube-scheduler with the same
// configuration then binds that backlog, timed from the first to the last
// binding the harness sees (so neither the scheduler's start-up nor the
// harness's pod creation, which on a small machine is slower than the
// scheduler, is in the figure). All the variants run in one process, one
// after another.
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
	c, err := startCluster(dir)
	if err != nil {
		return err
	}
	defer c.stop()
	fmt.Printf("cluster up in %.1f s\n", time.Since(started).Seconds())
	ctx := context.Background()
	var nodes []*v1.Node
	for i := 0; i < opts.nodes; i++ {
		nodes = append(nodes, testNode(fmt.Sprintf("node-%d", i)))
	}
	if err := createNodes(ctx, c.client, nodes); err != nil {
		return err
	}
	variants, err := perfVariants(opts)
	if err != nil {
		return err
	}
	fmt.Printf("throughput run: %d nodes, %d initial pods, %d measured pods, %d round(s)\n", opts.nodes, opts.initPods, opts.measuredPods, opts.rounds)

	results := map[string][]perfResult{}
	for round := 0; round < opts.rounds; round++ {
		for vi, v := range variants {
			if !strings.Contains(v.name, opts.only) {
				continue
			}
			ns := fmt.Sprintf("perf-%d-%d", round, vi)
			r, err := perfOnce(ctx, c, dir, ns, v, opts)
			if err != nil {
				return fmt.Errorf("%s: %w", v.name, err)
			}
			fmt.Printf("  round %d %-32s %8.1f pods/s (%d pods bound in %.2f s)\n", round+1, v.name, r.podsPer, opts.measuredPods, r.seconds)
			results[v.name] = append(results[v.name], r)
		}
	}
	// Per variant the median of the rounds (the machine is shared: a round
	// can land on another job's burst), with the rounds' range.
	base := median(results["default"])
	native := median(results["native NodeNumber"])
	tinyGo := median(results["KSW + TinyGo nodenumber"])
	for _, v := range variants {
		if !strings.Contains(v.name, opts.only) {
			continue
		}
		m := median(results[v.name])
		lo, hi := spread(results[v.name])
		fmt.Printf("throughput %-32s %7.1f pods/s (rounds %.0f-%.0f)  %5.2fx default  %5.2fx native NodeNumber  %5.2fx KSW + TinyGo\n", v.name+":", m, lo, hi, m/base, m/native, m/tinyGo)
	}
	ok = true
	return nil
}

func median(rs []perfResult) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.podsPer
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func spread(rs []perfResult) (lo, hi float64) {
	for i, r := range rs {
		if i == 0 || r.podsPer < lo {
			lo = r.podsPer
		}
		if r.podsPer > hi {
			hi = r.podsPer
		}
	}
	return lo, hi
}

func perfOnce(ctx context.Context, c *cluster, dir, ns string, v perfVariant, opts perfOptions) (perfResult, error) {
	if err := createNamespace(ctx, c.client, ns); err != nil {
		return perfResult{}, err
	}
	w, err := watchBindings(c.client, ns)
	if err != nil {
		return perfResult{}, err
	}
	defer w.close()
	config := fmt.Sprintf(perfSchedulerConfig, c.kubeconfig, v.profile)
	makePods := func(prefix string, n int) ([]*v1.Pod, []string) {
		var pods []*v1.Pod
		var names []string
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("%s-%d", prefix, i)
			pods = append(pods, testPod(ns, name, "default-scheduler"))
			names = append(names, name)
		}
		return pods, names
	}

	// The initial pods, bound by a first scheduler (none with --init 0,
	// the short case).
	if opts.initPods > 0 {
		warm, err := startScheduler(dir, ns+"-initial", config)
		if err != nil {
			return perfResult{}, err
		}
		defer warm.stop()
		initial, initialNames := makePods("init", opts.initPods)
		if _, err := createPods(ctx, c.client, initial); err != nil {
			return perfResult{}, err
		}
		if _, err := w.waitFor(initialNames, 10*time.Minute, warm.exited); err != nil {
			return perfResult{}, fmt.Errorf("initial pods: %w (scheduler log: %s)", err, warm.logPath)
		}
		warm.stop()
	}

	// The measured pods, pending until a fresh scheduler starts.
	measured, measuredNames := makePods("pod", opts.measuredPods)
	if _, err := createPods(ctx, c.client, measured); err != nil {
		return perfResult{}, err
	}
	var env []string
	if opts.cpuProfiles != "" {
		env = append(env, "KSW_E2E_CPUPROFILE="+filepath.Join(opts.cpuProfiles, ns+".pprof"))
	}
	sched, err := startScheduler(dir, ns+"-measured", config, env...)
	if err != nil {
		return perfResult{}, err
	}
	defer sched.stop()
	if _, err := w.waitFor(measuredNames, 20*time.Minute, sched.exited); err != nil {
		return perfResult{}, fmt.Errorf("measured pods: %w (scheduler log: %s)", err, sched.logPath)
	}
	sched.stop()
	// Leave the nodes empty for the next variant.
	zero := int64(0)
	if err := c.client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		return perfResult{}, fmt.Errorf("deleting the pods of %s: %w", ns, err)
	}
	secs := w.span(measuredNames).Seconds()
	if secs <= 0 || opts.measuredPods < 2 {
		return perfResult{}, fmt.Errorf("measured pods bound within %.3f s: too few to time (use --measured >= 100)", secs)
	}
	return perfResult{seconds: secs, podsPer: float64(opts.measuredPods-1) / secs}, nil
}
