package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"sigs.k8s.io/yaml"

	"kguest.dev/tests/extender-e2e/harness"
	"kguest.dev/tests/extender-e2e/harness/loopback"
)

// checkOptions are the flags of the `check` subcommand.
type checkOptions struct {
	kguest  string // the kguest CLI binary
	plugins string // <target>/plugins (cargo xtask examples)
	deploy  string // docs/deploy.md
	ksw     string // KSW's material at 9b2791f (proto-vendor/ksw), for the TinyGo control
}

// deployConfig returns the KubeSchedulerConfiguration YAML block of
// docs/deploy.md, verbatim.
func deployConfig(path string) ([]byte, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(text, -1)
	var found [][]byte
	for _, b := range blocks {
		if bytes.Contains(b[1], []byte("kind: KubeSchedulerConfiguration")) {
			found = append(found, b[1])
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%s: expected one ```yaml block with kind: KubeSchedulerConfiguration, found %d", path, len(found))
	}
	return found[0], nil
}

// deployGuestDir is where docs/deploy.md's configuration expects the
// modules; the check points those URLs at the built examples instead.
const deployGuestDir = "file:///etc/kubernetes/wasm/"

// checkDeployConfig loads docs/deploy.md's configuration, verbatim, with the
// scheduler's own config loader and validation (what `kube-scheduler
// --config` does before it builds any plugin) and returns it, with the wasm
// plugins KSW's cmd/scheduler rule finds in it (one per profile at least).
func checkDeployConfig(dir, deploy string) ([]byte, error) {
	yaml, err := deployConfig(deploy)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "deploy-md-config.yaml")
	if err := os.WriteFile(path, yaml, 0o644); err != nil {
		return nil, err
	}
	cfg, err := options.LoadConfigFromFile(klog.Background(), path)
	if err != nil {
		return nil, fmt.Errorf("docs/deploy.md's KubeSchedulerConfiguration: %w", err)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, fmt.Errorf("docs/deploy.md's KubeSchedulerConfiguration does not validate: %w", err)
	}
	names, err := wasmPluginNames([]string{"--config", path})
	if err != nil {
		return nil, err
	}
	if len(names) < len(cfg.Profiles) {
		return nil, fmt.Errorf("docs/deploy.md: %d wasm plugins (%v) for %d profiles", len(names), names, len(cfg.Profiles))
	}
	fmt.Printf("deploy.md KubeSchedulerConfiguration: loaded and validated by kube-scheduler v1.33.4's loader (%d profiles, wasm plugins %s)\n", len(cfg.Profiles), strings.Join(names, ", "))
	return yaml, nil
}

// schedulerConfig is docs/deploy.md's configuration as the check runs it:
// the same profiles, plugins, weights and guest configs, with
// clientConnection pointing at the test cluster, each guestURL under
// /etc/kubernetes/wasm/ pointing at the example of the same file name, and
// the control profiles appended.
func schedulerConfig(deployYAML []byte, kubeconfig, plugins string, control []map[string]any) ([]byte, []string, error) {
	var cfg map[string]any
	if err := yaml.Unmarshal(deployYAML, &cfg); err != nil {
		return nil, nil, fmt.Errorf("docs/deploy.md's configuration: %w", err)
	}
	cfg["clientConnection"] = map[string]any{"kubeconfig": kubeconfig}
	profiles, _ := cfg["profiles"].([]any)
	var names []string
	for _, p := range profiles {
		prof, _ := p.(map[string]any)
		name, _ := prof["schedulerName"].(string)
		names = append(names, name)
		pcs, _ := prof["pluginConfig"].([]any)
		for _, pc := range pcs {
			args, _ := pc.(map[string]any)["args"].(map[string]any)
			url, _ := args["guestURL"].(string)
			if !strings.HasPrefix(url, deployGuestDir) {
				return nil, nil, fmt.Errorf("docs/deploy.md: guestURL %q is not under %s", url, deployGuestDir)
			}
			file := filepath.Join(plugins, strings.TrimPrefix(url, deployGuestDir))
			if _, err := os.Stat(file); err != nil {
				return nil, nil, fmt.Errorf("docs/deploy.md's guestURL %s: no example %s (cargo xtask examples)", url, file)
			}
			args["guestURL"] = "file://" + file
		}
	}
	for _, c := range control {
		profiles = append(profiles, c)
		names = append(names, c["schedulerName"].(string))
	}
	cfg["profiles"] = profiles
	out, err := yaml.Marshal(cfg)
	return out, names, err
}

// tinyGoControl is a profile running upstream's TinyGo nodenumber example
// through the same scheduler, after kguest's taints (so that node-7's taint
// is a wasm decision there too).
func tinyGoControl(wasmFile, plugins string) map[string]any {
	return map[string]any{
		"schedulerName": "tinygo-nodenumber",
		"plugins": map[string]any{"multiPoint": map[string]any{"enabled": []any{
			map[string]any{"name": "control-taints"},
			map[string]any{"name": "tinygo-nodenumber"},
		}}},
		"pluginConfig": []any{
			map[string]any{
				"name": "control-taints",
				"args": map[string]any{"guestURL": "file://" + filepath.Join(plugins, "taints.wasm")},
			},
			map[string]any{
				"name": "tinygo-nodenumber",
				"args": map[string]any{"guestURL": "file://" + wasmFile, "guestConfig": `{"reverse": false}`},
			},
		},
	}
}

// kguestNodeRow is a node's line of `kguest run --scheduler-config ... --json`; the
// last line (the cycle's outcome) has no node.
type kguestNodeRow struct {
	Node   string `json:"node"`
	Status string `json:"status"` // Success: every wasm Filter passed (or none ran)
	Total  *int64 `json:"total"`  // the weighted sum of the wasm scores; null if Score did not run
}

// kguestPicks runs `kguest run --scheduler-config CFG --profile NAME --pod POD --nodes
// NODES --json` and returns the nodes a scheduler may bind the pod to on
// kguest's decision: those that pass every wasm Filter with the highest
// total (kube-scheduler picks at random among tied nodes; kguest run takes
// the first and names how many tied).
func kguestPicks(kguest, config, profile, podFile, nodesFile string) ([]string, error) {
	args := []string{"run", "--scheduler-config", config, "--profile", profile, "--pod", podFile, "--nodes", nodesFile, "--json"}
	cmd := exec.Command(kguest, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("kguest %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	best := int64(-1)
	var picks []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r kguestNodeRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("kguest run --json line %q: %w", sc.Text(), err)
		}
		if r.Node == "" || r.Status != "Success" {
			continue
		}
		total := int64(0)
		if r.Total != nil {
			total = *r.Total
		}
		switch {
		case total > best:
			best, picks = total, []string{r.Node}
		case total == best:
			picks = append(picks, r.Node)
		}
	}
	if len(picks) == 0 {
		return nil, fmt.Errorf("kguest run --profile %s: no node passes Filter for %s", profile, podFile)
	}
	sort.Strings(picks)
	return picks, nil
}

// checkNode is a node of the check: so large that the default Score
// plugins that stay in the profiles (NodeResourcesFit's LeastAllocated,
// BalancedAllocation) give every node the same score whatever the few test
// pods on it request, and the wasm plugins alone rank the nodes.
func checkNode(name string) *v1.Node {
	n := loopback.TestNode(name)
	capacity := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("1000"),
		v1.ResourceMemory: resource.MustParse("4Ti"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	n.Status.Capacity, n.Status.Allocatable = capacity, capacity
	return n
}

// runCheck is the `check` subcommand: docs/deploy.md's configuration through
// the scheduler's loader, then run by the real kube-scheduler with KSW's wasm
// plugin (plus upstream's TinyGo nodenumber as a control profile); every pod
// of every profile must be bound to a node `kguest run --scheduler-config` picks for
// the same profile and the objects as the API server stores them.
func runCheck(opts checkOptions) error {
	dir, err := os.MkdirTemp("", "ksw-e2e-check-")
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
	deployYAML, err := checkDeployConfig(dir, opts.deploy)
	if err != nil {
		return err
	}
	tinyGo := filepath.Join(opts.ksw, "examples", "nodenumber", "main.wasm")
	for _, f := range []string{opts.kguest, tinyGo} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("missing %s (cargo build -p kguest-cli; cargo xtask vendor ksw)", f)
		}
	}

	started := time.Now()
	c, err := loopback.Start(dir, "ksw-e2e")
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Printf("cluster up in %.1f s (etcd %s, kube-apiserver %s)\n", time.Since(started).Seconds(), c.EtcdAddr, c.Config.Host)
	ctx := context.Background()

	config, profiles, err := schedulerConfig(deployYAML, c.Kubeconfig, opts.plugins, []map[string]any{tinyGoControl(tinyGo, opts.plugins)})
	if err != nil {
		return err
	}
	configFile := filepath.Join(dir, "scheduler-check.yaml")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return err
	}

	// Ten nodes node-0 … node-9; node-7 is tainted NoSchedule (the wasm
	// taints plugin and the default TaintToleration both reject it).
	var nodes []*v1.Node
	for i := 0; i < 10; i++ {
		nodes = append(nodes, checkNode(fmt.Sprintf("node-%d", i)))
	}
	nodes[7].Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "batch", Effect: v1.TaintEffectNoSchedule}}
	if err := loopback.CreateNodes(ctx, c.Client, nodes); err != nil {
		return err
	}
	stored, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{}}
	for i := range stored.Items {
		n := stored.Items[i]
		n.APIVersion, n.Kind = "v1", "Node"
		list["items"] = append(list["items"].([]any), n)
	}
	nodesFile := filepath.Join(dir, "nodes.json")
	if err := harness.WriteJSON(nodesFile, list); err != nil {
		return err
	}

	sched, err := loopback.StartScheduler(dir, "check", config, 1, nil)
	if err != nil {
		return err
	}
	defer sched.Stop()

	// Per profile, pods whose names end in each digit, and two whose names
	// end in no digit (nodenumber's PreScore skips).
	bound, total := 0, 0
	var mismatches []string
	for _, profile := range profiles {
		ns := "e2e-" + profile
		if err := loopback.CreateNamespace(ctx, c.Client, ns); err != nil {
			return err
		}
		w, err := loopback.WatchBindings(c.Client, ns)
		if err != nil {
			return err
		}
		var pods []*v1.Pod
		var names []string
		for _, suffix := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "x", "web"} {
			name := "pod-" + suffix
			pod := loopback.TestPod(ns, name)
			pod.Spec.SchedulerName = profile
			pods = append(pods, pod)
			names = append(names, name)
		}
		created, err := loopback.CreatePods(ctx, c.Client, pods)
		if err != nil {
			w.Close()
			return err
		}
		if err := w.WaitFor(names, 2*time.Minute, sched.Exited); err != nil {
			w.Close()
			return fmt.Errorf("profile %s: %w (scheduler log: %s)", profile, err, sched.LogPath)
		}
		for _, pod := range created {
			pod.APIVersion, pod.Kind = "v1", "Pod"
			podFile := filepath.Join(dir, ns+"-"+pod.Name+".json")
			if err := harness.WriteJSON(podFile, pod); err != nil {
				w.Close()
				return err
			}
			picks, err := kguestPicks(opts.kguest, configFile, profile, podFile, nodesFile)
			if err != nil {
				w.Close()
				return err
			}
			node := w.NodeOf(pod.Name)
			total++
			if slices.Contains(picks, node) {
				bound++
			} else {
				mismatches = append(mismatches, fmt.Sprintf("%s %s/%s: bound to %s, kguest picks %v", profile, ns, pod.Name, node, picks))
			}
		}
		w.Close()
	}
	for _, m := range mismatches {
		fmt.Println("MISMATCH " + m)
	}
	fmt.Printf("ksw e2e: %d/%d pods bound through KSW's wasm plugin in kube-scheduler v1.33.4 where kguest run picks (profiles %s; %s is upstream's TinyGo control)\n", bound, total, strings.Join(profiles, ", "), profiles[len(profiles)-1])
	if bound != total {
		return fmt.Errorf("%d of %d pods bound elsewhere than kguest picks", total-bound, total)
	}
	ok = true
	return nil
}
