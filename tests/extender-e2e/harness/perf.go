package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"kguest.dev/tests/extender-e2e/harness/loopback"
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
// binding the harness sees (loopback.Throughput, as tests/ksw-e2e times
// it). The profile is the default one; a variant adds the native Go
// NodeNumber where the release module has one (KSW's scheduler_perf
// "PluginOnly" shape); the extender variant adds deploy/extender's extender
// block, with kguest-extender serving deploy/extender/plugins.yaml
// (NodeNumber) from its node cache.
func Perf(opts PerfOptions) (err error) {
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
		nodes = append(nodes, loopback.TestNode(fmt.Sprintf("node-%d", i)))
	}
	if err := loopback.CreateNodes(r.ctx, r.cluster.Client, nodes); err != nil {
		return err
	}
	if r.files, err = makeTLS(dir); err != nil {
		return err
	}
	profile := filepath.Join(dir, "extender-profile.yaml")
	if err := deployProfile(opts.Deploy, opts.Plugins, profile); err != nil {
		return err
	}
	port, err := loopback.FreePort()
	if err != nil {
		return err
	}
	r.ext = newExtender(opts.Extender, dir, profile, saKubeconfig, port, r.files)
	if err := r.ext.start(); err != nil {
		return err
	}
	defer r.ext.stop()
	var variants []loopback.Variant
	for _, v := range perfVariants(opts.NativeNodeNumber) {
		config, err := r.perfConfig(v)
		if err != nil {
			return err
		}
		variants = append(variants, loopback.Variant{Name: v.name, Config: config})
	}
	fmt.Printf("throughput run, kube-scheduler %s: %d nodes, %d initial pods, %d measured pods\n", opts.Release, opts.Nodes, opts.InitPods, opts.MeasuredPods)
	t := loopback.Throughput{Cluster: r.cluster, Dir: dir, InitPods: opts.InitPods, MeasuredPods: opts.MeasuredPods, Rounds: 1, Verbosity: 2}
	var base float64
	_, err = t.Run(r.ctx, variants, func(_ int, v loopback.Variant, res loopback.Result) {
		if base == 0 {
			base = res.PodsPer
		}
		fmt.Printf("throughput %s %s: %.1f pods/s (%d pods bound in %.2f s; %.2fx the default profile)\n", opts.Release, v.Name, res.PodsPer, opts.MeasuredPods, res.Seconds, res.PodsPer/base)
	})
	return err
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
