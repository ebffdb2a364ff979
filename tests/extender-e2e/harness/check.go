// Package harness is the release-independent part of the extender
// end-to-end check: the real kube-scheduler (built by a release module
// beside this one) configured from deploy/extender's extender block, and
// `kguest-extender serve` as its own process on loopback.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"kguest.dev/tests/extender-e2e/harness/loopback"
)

// Options are the `check` subcommand's flags.
type Options struct {
	Release  string // e.g. 1.33.4, for the printed lines
	Extender string // the kguest-extender binary
	Plugins  string // the folder of the built example plugins
	Deploy   string // deploy/extender
}

// run is one check's state.
type run struct {
	opts      Options
	dir       string
	ctx       context.Context
	cluster   *loopback.Cluster
	block     *extenderBlock
	files     *tlsFiles
	ext       *extenderProcess
	predictor *predictor
	sched     *loopback.Scheduler
	bound     int // pods bound where kguest predicts
	total     int
	missed    []string
}

// schedulerConfig is kube-scheduler's configuration: one profile that
// keeps the default Filter plugins but TaintToleration (so a taint is
// judged by the extender's Taints guest alone) and disables every Score
// plugin (so the extender's priorities alone rank the nodes), and
// deploy/extender's extender block.
func (r *run) schedulerConfig(overrides map[string]any) ([]byte, error) {
	ext, err := r.block.forLoopback(r.ext.port, r.files, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range overrides {
		ext[k] = v
	}
	return yaml.Marshal(map[string]any{
		"apiVersion":       "kubescheduler.config.k8s.io/v1",
		"kind":             "KubeSchedulerConfiguration",
		"clientConnection": map[string]any{"kubeconfig": r.cluster.Kubeconfig},
		"leaderElection":   map[string]any{"leaderElect": false},
		"profiles": []any{map[string]any{
			"schedulerName": "default-scheduler",
			"plugins": map[string]any{
				"multiPoint": map[string]any{"disabled": []any{map[string]any{"name": "TaintToleration"}}},
				"score":      map[string]any{"disabled": []any{map[string]any{"name": "*"}}},
			},
		}},
		"extenders": []any{ext},
	})
}

func (r *run) startScheduler(name string, overrides map[string]any) error {
	if r.sched != nil {
		r.sched.Stop()
	}
	cfg, err := r.schedulerConfig(overrides)
	if err != nil {
		return err
	}
	r.sched, err = loopback.StartScheduler(r.dir, name, cfg, 2, nil)
	return err
}

// round creates pods pod-<suffix> in a new namespace, waits until all are
// bound, and compares each node with the extender's prediction over the
// Nodes as they are now.
func (r *run) round(name string, suffixes []string) error {
	ns := "e2e-" + name
	created, w, err := r.createPods(ns, suffixes)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.WaitFor(podNames(created), 2*time.Minute, r.alive); err != nil {
		return fmt.Errorf("round %s: %w (scheduler log: %s)", name, err, r.sched.LogPath)
	}
	return r.compare(name, created, w)
}

func (r *run) createPods(ns string, suffixes []string) ([]*v1.Pod, *loopback.BindWatcher, error) {
	if err := loopback.CreateNamespace(r.ctx, r.cluster.Client, ns); err != nil {
		return nil, nil, err
	}
	w, err := loopback.WatchBindings(r.cluster.Client, ns)
	if err != nil {
		return nil, nil, err
	}
	var pods []*v1.Pod
	for _, s := range suffixes {
		pods = append(pods, loopback.TestPod(ns, "pod-"+s))
	}
	created, err := loopback.CreatePods(r.ctx, r.cluster.Client, pods)
	if err != nil {
		w.Close()
		return nil, nil, err
	}
	return created, w, nil
}

func (r *run) compare(name string, pods []*v1.Pod, w *loopback.BindWatcher) error {
	if err := r.predictor.snapshotNodes(r.ctx, r.cluster.Client, name); err != nil {
		return err
	}
	for _, pod := range pods {
		picks, err := r.predictor.picks(pod)
		if err != nil {
			return err
		}
		node := w.NodeOf(pod.Name)
		r.total++
		if slices.Contains(picks, node) {
			r.bound++
		} else {
			r.missed = append(r.missed, fmt.Sprintf("%s %s/%s: bound to %s, kguest predicts %v", name, pod.Namespace, pod.Name, node, picks))
		}
	}
	return nil
}

// alive fails once the scheduler has exited.
func (r *run) alive() error { return r.sched.Exited() }

func podNames(pods []*v1.Pod) []string {
	var names []string
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return names
}

// extenderAccount applies deploy/extender/rbac.yaml and writes a
// kubeconfig holding a token of its ServiceAccount, for the extender.
func (r *run) extenderAccount() (serviceAccount, *rest.Config, string, error) {
	sa, err := applyRBAC(r.ctx, r.cluster.Client, filepath.Join(r.opts.Deploy, "rbac.yaml"))
	if err != nil {
		return sa, nil, "", err
	}
	path := filepath.Join(r.dir, "extender-kubeconfig")
	cfg, err := serviceAccountKubeconfig(r.ctx, r.cluster.Client, r.cluster.Config, sa, path)
	return sa, cfg, path, err
}

// serveExtender starts kguest-extender (r.ext, to be stopped by the
// caller whatever the error) with mTLS from two fresh CAs, the profile
// writeProfile writes and the given kubeconfig, and waits until it is
// ready; it returns the profile's path.
func (r *run) serveExtender(kubeconfig string, writeProfile func(deployDir, pluginsDir, out string) error) (string, error) {
	r.ext = &extenderProcess{}
	var err error
	if r.files, err = makeTLS(r.dir); err != nil {
		return "", err
	}
	profile := filepath.Join(r.dir, "extender-profile.yaml")
	if err := writeProfile(r.opts.Deploy, r.opts.Plugins, profile); err != nil {
		return "", err
	}
	port, err := loopback.FreePort()
	if err != nil {
		return "", err
	}
	r.ext = newExtender(r.opts.Extender, r.dir, profile, kubeconfig, port, r.files)
	return profile, r.ext.start()
}

// startCluster is the loopback cluster the extender runs against, with
// RBAC authorization only, so deploy/extender/rbac.yaml is what lets the
// extender in (the API server's default is AlwaysAllow).
func startCluster(dir string) (*loopback.Cluster, error) {
	return loopback.Start(dir, "extender-e2e", "--authorization-mode=RBAC")
}

// noSchedule is the taint the extender's Taints plugin filters on (the
// scheduler's own TaintToleration is disabled in the profile).
var noSchedule = v1.Taint{Key: "kguest.dev/e2e", Value: "tainted", Effect: v1.TaintEffectNoSchedule}

var digits = []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "x"}

// Check is the `check` subcommand.
func Check(opts Options) (err error) {
	dir, err := os.MkdirTemp("", "extender-e2e-"+opts.Release+"-")
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
	for _, f := range []string{opts.Extender, filepath.Join(opts.Plugins, "nodenumber.wasm"), filepath.Join(opts.Plugins, "taints.wasm")} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("missing %s (cargo build -p kguest-extender; cargo xtask examples)", f)
		}
	}
	r := &run{opts: opts, dir: dir, ctx: context.Background()}
	if r.block, err = readExtenderBlock(filepath.Join(opts.Deploy, "scheduler-extender.yaml")); err != nil {
		return err
	}
	started := time.Now()
	if r.cluster, err = startCluster(dir); err != nil {
		return err
	}
	defer r.cluster.Stop()
	fmt.Printf("cluster up in %.1f s (kube-apiserver %s, RBAC authorization)\n", time.Since(started).Seconds(), r.cluster.Config.Host)

	sa, saConfig, saKubeconfig, err := r.extenderAccount()
	if err != nil {
		return err
	}
	if err := checkLeastPrivilege(r.ctx, saConfig); err != nil {
		return err
	}
	fmt.Printf("deploy/extender/rbac.yaml applied: service account %s/%s lists nodes, is refused pods and secrets\n", sa.namespace, sa.name)

	// node-0 … node-9; node-7 tainted (the extender's Taints guest keeps
	// pods off it).
	var nodes []*v1.Node
	for i := 0; i < 10; i++ {
		if i == 7 {
			nodes = append(nodes, loopback.TestNode("node-7", noSchedule))
		} else {
			nodes = append(nodes, loopback.TestNode(fmt.Sprintf("node-%d", i)))
		}
	}
	if err := loopback.CreateNodes(r.ctx, r.cluster.Client, nodes); err != nil {
		return err
	}

	profile, err := r.serveExtender(saKubeconfig, extenderProfile)
	defer r.ext.stop()
	if err != nil {
		return err
	}
	r.predictor = &predictor{bin: opts.Extender, profile: profile, dir: dir, weight: r.block.weight}

	if err := r.startScheduler("deploy", nil); err != nil {
		return err
	}
	defer func() { r.sched.Stop() }()

	if err := r.round("initial", digits); err != nil {
		return err
	}
	if err := r.changeNodes(); err != nil {
		return err
	}
	if err := r.round("changed", digits); err != nil {
		return err
	}
	// The same, with Nodes sent in each request (nodeCacheCapable: false).
	if err := r.startScheduler("full-nodes", map[string]any{"nodeCacheCapable": false}); err != nil {
		return err
	}
	if err := r.round("full-nodes", digits); err != nil {
		return err
	}
	if err := r.startScheduler("deploy-again", nil); err != nil {
		return err
	}
	if err := r.faultNotIgnorable(); err != nil {
		return err
	}
	for _, m := range r.missed {
		fmt.Println("MISMATCH " + m)
	}
	fmt.Printf("extender e2e %s: %d/%d pods bound where kguest predicts\n", opts.Release, r.bound, r.total)
	if r.bound != r.total {
		return fmt.Errorf("%d of %d pods bound elsewhere than kguest predicts", r.total-r.bound, r.total)
	}
	return r.faultIgnorable()
}

// changeNodes deletes node-5, adds node-15, taints node-3 and untaints
// node-7 while the extender and the scheduler run, and waits until the
// extender's cache shows all four (asked through its own filter verb) and
// the scheduler has node-15 (a pod pinned to it is bound).
func (r *run) changeNodes() error {
	nodes := r.cluster.Client.CoreV1().Nodes()
	if err := nodes.Delete(r.ctx, "node-5", metav1.DeleteOptions{}); err != nil {
		return err
	}
	if _, err := nodes.Create(r.ctx, loopback.TestNode("node-15"), metav1.CreateOptions{}); err != nil {
		return err
	}
	for name, taints := range map[string][]v1.Taint{"node-3": {noSchedule}, "node-7": nil} {
		n, err := nodes.Get(r.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Taints = taints
		if _, err := nodes.Update(r.ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	probe := loopback.TestPod("default", "probe")
	deadline := time.Now().Add(60 * time.Second)
	for {
		seen, why, err := r.extenderSeesChanges(probe)
		if err != nil {
			return err
		}
		if seen {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the extender's node cache did not follow the node changes in 60 s: %s", why)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The scheduler's own cache: a pod pinned to node-15 by nodeSelector.
	ns := "e2e-barrier"
	if err := loopback.CreateNamespace(r.ctx, r.cluster.Client, ns); err != nil {
		return err
	}
	w, err := loopback.WatchBindings(r.cluster.Client, ns)
	if err != nil {
		return err
	}
	defer w.Close()
	pin := loopback.TestPod(ns, "pinned-to-node-15")
	pin.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-15"}
	if _, err := loopback.CreatePods(r.ctx, r.cluster.Client, []*v1.Pod{pin}); err != nil {
		return err
	}
	if err := w.WaitFor([]string{pin.Name}, 2*time.Minute, r.alive); err != nil {
		return fmt.Errorf("pod pinned to node-15: %w", err)
	}
	if got := w.NodeOf(pin.Name); got != "node-15" {
		return fmt.Errorf("pod pinned to node-15 bound to %s", got)
	}
	fmt.Println("nodes changed while running (node-5 deleted, node-15 added, node-3 tainted, node-7 untainted): the extender's cache follows")
	return nil
}

// extenderSeesChanges asks the extender's filter verb, as the scheduler
// would, whether its cache has the changes of changeNodes.
func (r *run) extenderSeesChanges(probe *v1.Pod) (bool, string, error) {
	res, err := r.ext.filter(probe, []string{"node-15", "node-3", "node-7"})
	if err != nil {
		return false, "", err
	}
	if res.Error != "" {
		return false, "filter: " + res.Error, nil
	}
	_, failed := res.FailedNodes["node-3"]
	_, unresolvable := res.FailedAndUnresolvableNodes["node-3"]
	if !failed && !unresolvable {
		return false, "node-3 not yet failed for its taint", nil
	}
	if res.NodeNames == nil || !slices.Contains(*res.NodeNames, "node-15") || !slices.Contains(*res.NodeNames, "node-7") {
		return false, fmt.Sprintf("passed %v, want node-15 and node-7", res.NodeNames), nil
	}
	res, err = r.ext.filter(probe, []string{"node-5"})
	if err != nil {
		return false, "", err
	}
	if !strings.Contains(res.Error, "not in the node cache") {
		return false, fmt.Sprintf("node-5 still known (answer %+v)", res), nil
	}
	return true, "", nil
}

// faultNotIgnorable: with deploy's ignorable: false, no pod is bound while
// the extender is down; after it restarts, every pod is bound where
// kguest predicts (so none against the Taints filter).
func (r *run) faultNotIgnorable() error {
	if r.block.fields["ignorable"] != false {
		return errors.New("deploy/extender's extender block is expected to say ignorable: false")
	}
	r.ext.kill()
	pods, w, err := r.createPods("e2e-extender-down", []string{"3", "7", "15", "x"})
	if err != nil {
		return err
	}
	defer w.Close()
	// The scheduler tries (and fails) while the extender is down: wait
	// for its failed attempts in its log, then check nothing was bound.
	if err := r.waitForExtenderErrors(); err != nil {
		return err
	}
	boundWhileDown := w.Count(podNames(pods))
	if err := r.ext.start(); err != nil {
		return err
	}
	if err := w.WaitFor(podNames(pods), 2*time.Minute, r.alive); err != nil {
		return fmt.Errorf("after the extender restarted: %w (scheduler log: %s)", err, r.sched.LogPath)
	}
	before := r.bound
	if err := r.compare("after-restart", pods, w); err != nil {
		return err
	}
	fmt.Printf("extender e2e %s ignorable: false: %d/%d pods bound while the extender was down; after its restart %d/%d bound where kguest predicts\n",
		r.opts.Release, boundWhileDown, len(pods), r.bound-before, len(pods))
	if boundWhileDown != 0 {
		return fmt.Errorf("%d pods bound while the (not ignorable) extender was down", boundWhileDown)
	}
	return nil
}

// waitForExtenderErrors waits until the scheduler's log shows at least
// two failed scheduling attempts that name the extender's URL.
func (r *run) waitForExtenderErrors() error {
	needle := fmt.Sprintf("127.0.0.1:%d", r.ext.port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		text, err := os.ReadFile(r.sched.LogPath)
		if err != nil {
			return err
		}
		n := 0
		for _, line := range strings.Split(string(text), "\n") {
			if strings.Contains(line, needle) && strings.Contains(line, "e2e-extender-down") {
				n++
			}
		}
		if n >= 2 {
			return nil
		}
		if err := r.alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no failed scheduling attempt naming the extender (%s) in %s after 60 s", needle, r.sched.LogPath)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// faultIgnorable: with ignorable: true every pod is bound while the
// extender is down.
func (r *run) faultIgnorable() error {
	if err := r.startScheduler("ignorable", map[string]any{"ignorable": true}); err != nil {
		return err
	}
	r.ext.kill()
	pods, w, err := r.createPods("e2e-ignorable-down", []string{"0", "1", "2", "x"})
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.WaitFor(podNames(pods), 2*time.Minute, r.alive); err != nil {
		return fmt.Errorf("ignorable: true, extender down: %w (scheduler log: %s)", err, r.sched.LogPath)
	}
	fmt.Printf("extender e2e %s ignorable: true: %d/%d pods bound while the extender was down\n", r.opts.Release, w.Count(podNames(pods)), len(pods))
	return nil
}
