package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// PerfOptions are the `perf` subcommand's flags; the defaults are KSW's
// scheduler_perf shape (500 nodes, 500 initial pods, 1,000 measured).
type PerfOptions struct {
	Options
	Nodes, InitPods, MeasuredPods int
	// The release module registers a native Go NodeNumber in its
	// kube-scheduler (a variant then enables it).
	NativeNodeNumber bool
}

// perfVariant is one scheduler configuration timed by Perf.
type perfVariant struct {
	name     string
	extender bool // deploy/extender's extender block, kguest-extender serving deploy's profile
	native   bool // the native Go NodeNumber under multiPoint
}

func perfVariants(native bool) []perfVariant {
	vs := []perfVariant{{name: "default profile"}}
	if native {
		vs = append(vs, perfVariant{name: "+ native Go NodeNumber", native: true})
	}
	return append(vs, perfVariant{name: "+ kguest-extender (nodenumber)", extender: true})
}

// Perf is the `perf` subcommand: per variant, on the same nodes, a
// kube-scheduler binds the initial pods and stops; the measured pods are
// created while no scheduler runs; a fresh kube-scheduler with the same
// configuration binds that backlog, timed from the first to the last
// binding the harness sees (as tests/ksw-e2e does: neither the scheduler's
// start nor the harness's pod creation is in the figure). The profile is
// the default one; a variant adds the native Go NodeNumber where the
// release module has one (KSW's scheduler_perf "PluginOnly" shape); the
// extender variant adds deploy/extender's extender
// block, with kguest-extender serving deploy/extender/plugins.yaml
// (NodeNumber) from its node cache.
func Perf(opts PerfOptions, startCluster func(dir string) (*Cluster, error)) (err error) {
	dir, err := os.MkdirTemp("", "extender-e2e-perf-"+opts.Release+"-")
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			os.RemoveAll(dir)
		} else {
			fmt.Fprintf(os.Stderr, "extender-e2e: logs kept in %s\n", dir)
		}
	}()
	r := &run{opts: opts.Options, dir: dir, ctx: context.Background()}
	if r.block, err = readExtenderBlock(filepath.Join(opts.Deploy, "scheduler-extender.yaml")); err != nil {
		return err
	}
	if r.cluster, err = startCluster(dir); err != nil {
		return err
	}
	defer r.cluster.Stop()
	sa, err := applyRBAC(r.ctx, r.cluster.Client, filepath.Join(opts.Deploy, "rbac.yaml"))
	if err != nil {
		return err
	}
	saKubeconfig := filepath.Join(dir, "extender-kubeconfig")
	if _, err := serviceAccountKubeconfig(r.ctx, r.cluster.Client, r.cluster.Config, sa, saKubeconfig); err != nil {
		return err
	}
	var nodes []*v1.Node
	for i := 0; i < opts.Nodes; i++ {
		nodes = append(nodes, testNode(fmt.Sprintf("node-%d", i)))
	}
	if err := createNodes(r.ctx, r.cluster.Client, nodes); err != nil {
		return err
	}
	if r.files, err = makeTLS(dir); err != nil {
		return err
	}
	profile := filepath.Join(dir, "extender-profile.yaml")
	if err := deployProfile(opts.Deploy, opts.Plugins, profile); err != nil {
		return err
	}
	port, err := FreePort()
	if err != nil {
		return err
	}
	r.ext = newExtender(opts.Extender, dir, profile, saKubeconfig, port, r.files)
	if err := r.ext.start(); err != nil {
		return err
	}
	defer r.ext.stop()
	fmt.Printf("throughput run, kube-scheduler %s: %d nodes, %d initial pods, %d measured pods\n", opts.Release, opts.Nodes, opts.InitPods, opts.MeasuredPods)
	var base float64
	for i, v := range perfVariants(opts.NativeNodeNumber) {
		podsPer, secs, err := r.perfOnce(fmt.Sprintf("perf-%d", i), v, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		if i == 0 {
			base = podsPer
		}
		fmt.Printf("throughput %s %s: %.1f pods/s (%d pods bound in %.2f s; %.2fx the default profile)\n", opts.Release, v.name, podsPer, opts.MeasuredPods, secs, podsPer/base)
	}
	return nil
}

// perfConfig is kube-scheduler's configuration for a variant.
func (r *run) perfConfig(v perfVariant) ([]byte, error) {
	cfg := map[string]any{
		"apiVersion":       "kubescheduler.config.k8s.io/v1",
		"kind":             "KubeSchedulerConfiguration",
		"clientConnection": map[string]any{"kubeconfig": r.cluster.Kubeconfig, "qps": 5000, "burst": 5000},
		"leaderElection":   map[string]any{"leaderElect": false},
	}
	if v.native {
		cfg["profiles"] = []any{map[string]any{
			"schedulerName": "default-scheduler",
			"plugins": map[string]any{"multiPoint": map[string]any{
				"enabled": []any{map[string]any{"name": "NodeNumber"}},
			}},
		}}
	}
	if v.extender {
		ext, err := r.block.forLoopback(r.ext.port, r.files, nil)
		if err != nil {
			return nil, err
		}
		cfg["extenders"] = []any{ext}
	}
	return yaml.Marshal(cfg)
}

func (r *run) perfOnce(ns string, v perfVariant, opts PerfOptions) (float64, float64, error) {
	if err := createNamespace(r.ctx, r.cluster.Client, ns); err != nil {
		return 0, 0, err
	}
	w, err := watchBindings(r.cluster.Client, ns)
	if err != nil {
		return 0, 0, err
	}
	defer w.close()
	config, err := r.perfConfig(v)
	if err != nil {
		return 0, 0, err
	}
	makePods := func(prefix string, n int) ([]*v1.Pod, []string) {
		var pods []*v1.Pod
		var names []string
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("%s-%d", prefix, i)
			pods = append(pods, testPod(ns, name))
			names = append(names, name)
		}
		return pods, names
	}
	warm, err := startScheduler(r.dir, ns+"-initial", config)
	if err != nil {
		return 0, 0, err
	}
	defer warm.stop()
	initial, initialNames := makePods("init", opts.InitPods)
	if _, err := createPods(r.ctx, r.cluster.Client, initial); err != nil {
		return 0, 0, err
	}
	if err := w.waitFor(initialNames, 10*time.Minute, warm.exited); err != nil {
		return 0, 0, fmt.Errorf("initial pods: %w (scheduler log: %s)", err, warm.logPath)
	}
	warm.stop()
	measured, measuredNames := makePods("pod", opts.MeasuredPods)
	if _, err := createPods(r.ctx, r.cluster.Client, measured); err != nil {
		return 0, 0, err
	}
	sched, err := startScheduler(r.dir, ns+"-measured", config)
	if err != nil {
		return 0, 0, err
	}
	defer sched.stop()
	if err := w.waitFor(measuredNames, 20*time.Minute, sched.exited); err != nil {
		return 0, 0, fmt.Errorf("measured pods: %w (scheduler log: %s)", err, sched.logPath)
	}
	sched.stop()
	zero := int64(0)
	if err := r.cluster.Client.CoreV1().Pods(ns).DeleteCollection(r.ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		return 0, 0, fmt.Errorf("deleting the pods of %s: %w", ns, err)
	}
	secs := w.span(measuredNames).Seconds()
	if secs <= 0 || opts.MeasuredPods < 2 {
		return 0, 0, fmt.Errorf("measured pods bound within %.3f s: too few to time", secs)
	}
	return float64(opts.MeasuredPods-1) / secs, secs, nil
}
