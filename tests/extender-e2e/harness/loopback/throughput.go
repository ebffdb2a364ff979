package loopback

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Variant is one kube-scheduler configuration a throughput run times.
type Variant struct {
	Name   string
	Config []byte   // the whole KubeSchedulerConfiguration
	Args   []string // kube-scheduler flags besides --config (e.g. --feature-gates)
}

// Result is one timing of a variant.
type Result struct {
	Seconds  float64 // first to last binding of the measured pods
	PodsPer  float64
	Counters Counters // the measured scheduler's counters (with Throughput.Metrics)
}

// Throughput times variants in scheduler_perf's way, on the nodes the
// cluster already has.
type Throughput struct {
	Cluster                *Cluster
	Dir                    string // scheduler configs and logs
	InitPods, MeasuredPods int
	Rounds                 int
	Verbosity              int    // the schedulers' --v
	CPUProfiles            string // if set, each measured scheduler's CPU profile goes here
	// Metrics: each measured scheduler writes its scheduler_* counters
	// when it exits (WriteMetrics), into Result.Counters.
	Metrics bool
}

// cpuProfileEnv names the file a scheduler child writes its CPU profile to.
const cpuProfileEnv = "E2E_SCHEDULER_CPUPROFILE"

// ProfileCPU starts the CPU profile the harness asked this scheduler child
// for (none unless Throughput.CPUProfiles is set); stop ends it.
func ProfileCPU() (stop func(), err error) {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// Run times every variant t.Rounds times, the rounds interleaved (round 1
// of every variant, then round 2, ...; the machine is shared, so a round can
// land on another job's burst), and calls each after every timing.
func (t *Throughput) Run(ctx context.Context, variants []Variant, each func(round int, v Variant, r Result)) (map[string][]Result, error) {
	results := map[string][]Result{}
	for round := 0; round < t.Rounds; round++ {
		for vi, v := range variants {
			r, err := t.once(ctx, fmt.Sprintf("perf-%d-%d", round, vi), v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", v.Name, err)
			}
			each(round, v, r)
			results[v.Name] = append(results[v.Name], r)
		}
	}
	return results, nil
}

// once times one variant in a new namespace ns: a scheduler binds the
// initial pods and stops (none with InitPods 0); the measured pods are
// created while no scheduler runs; a fresh scheduler with the same
// configuration then binds that backlog, timed from the first to the last
// binding the harness sees (so neither the scheduler's start-up nor the
// harness's pod creation, which on a small machine is slower than the
// scheduler, is in the figure). The pods are deleted afterwards, leaving
// the nodes empty for the next variant.
func (t *Throughput) once(ctx context.Context, ns string, v Variant) (Result, error) {
	client := t.Cluster.Client
	if err := CreateNamespace(ctx, client, ns); err != nil {
		return Result{}, err
	}
	w, err := WatchBindings(client, ns)
	if err != nil {
		return Result{}, err
	}
	defer w.Close()
	makePods := func(prefix string, n int) ([]*v1.Pod, []string) {
		var pods []*v1.Pod
		var names []string
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("%s-%d", prefix, i)
			pods = append(pods, TestPod(ns, name))
			names = append(names, name)
		}
		return pods, names
	}
	if t.InitPods > 0 {
		warm, err := StartScheduler(t.Dir, ns+"-initial", v.Config, t.Verbosity, v.Args)
		if err != nil {
			return Result{}, err
		}
		defer warm.Stop()
		initial, initialNames := makePods("init", t.InitPods)
		if _, err := CreatePods(ctx, client, initial); err != nil {
			return Result{}, err
		}
		if err := w.WaitFor(initialNames, 10*time.Minute, warm.Exited); err != nil {
			return Result{}, fmt.Errorf("initial pods: %w (scheduler log: %s)", err, warm.LogPath)
		}
		warm.Stop()
	}
	measured, measuredNames := makePods("pod", t.MeasuredPods)
	if _, err := CreatePods(ctx, client, measured); err != nil {
		return Result{}, err
	}
	var env []string
	if t.CPUProfiles != "" {
		env = append(env, cpuProfileEnv+"="+filepath.Join(t.CPUProfiles, ns+".pprof"))
	}
	metrics := filepath.Join(t.Dir, ns+"-measured.metrics")
	if t.Metrics {
		env = append(env, metricsEnv+"="+metrics)
	}
	sched, err := StartScheduler(t.Dir, ns+"-measured", v.Config, t.Verbosity, v.Args, env...)
	if err != nil {
		return Result{}, err
	}
	defer sched.Stop()
	if err := w.WaitFor(measuredNames, 20*time.Minute, sched.Exited); err != nil {
		return Result{}, fmt.Errorf("measured pods: %w (scheduler log: %s)", err, sched.LogPath)
	}
	sched.Stop()
	zero := int64(0)
	if err := client.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		return Result{}, fmt.Errorf("deleting the pods of %s: %w", ns, err)
	}
	secs := w.Span(measuredNames).Seconds()
	if secs <= 0 || t.MeasuredPods < 2 {
		return Result{}, fmt.Errorf("measured pods bound within %.3f s: too few to time (use --measured >= 100)", secs)
	}
	res := Result{Seconds: secs, PodsPer: float64(t.MeasuredPods-1) / secs}
	if t.Metrics {
		// A scheduler killed after SIGTERM's grace wrote none: that round
		// has no counters, said here and counted by the caller.
		if res.Counters, err = readCounters(metrics); err != nil {
			fmt.Fprintf(os.Stderr, "%s %s: no counters: %v (scheduler log: %s)\n", v.Name, ns, err, sched.LogPath)
		}
	}
	return res, nil
}

// Median is the median pods/s of rs (0 for none).
func Median(rs []Result) float64 {
	if len(rs) == 0 {
		return 0
	}
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = r.PodsPer
	}
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// Spread is the lowest and highest pods/s of rs.
func Spread(rs []Result) (lo, hi float64) {
	for i, r := range rs {
		if i == 0 || r.PodsPer < lo {
			lo = r.PodsPer
		}
		if r.PodsPer > hi {
			hi = r.PodsPer
		}
	}
	return lo, hi
}
