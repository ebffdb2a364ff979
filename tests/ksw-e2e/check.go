package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

// checkOptions are the flags of the `check` subcommand.
type checkOptions struct {
	kguest  string // the kguest CLI binary
	plugins string // <target>/plugins (cargo xtask examples)
	deploy  string // docs/deploy.md
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

// checkDeployConfig loads docs/deploy.md's configuration, verbatim, with the
// scheduler's own config loader and validation (what `kube-scheduler
// --config` does before it builds any plugin), and checks that its wasm
// plugin is enabled under multiPoint with its args kept for the plugin.
func checkDeployConfig(dir, deploy string) error {
	yaml, err := deployConfig(deploy)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "deploy-md-config.yaml")
	if err := os.WriteFile(path, yaml, 0o644); err != nil {
		return err
	}
	cfg, err := options.LoadConfigFromFile(klog.Background(), path)
	if err != nil {
		return fmt.Errorf("docs/deploy.md's KubeSchedulerConfiguration: %w", err)
	}
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return fmt.Errorf("docs/deploy.md's KubeSchedulerConfiguration does not validate: %w", err)
	}
	if len(cfg.Profiles) != 1 {
		return fmt.Errorf("docs/deploy.md's configuration has %d profiles, expected 1", len(cfg.Profiles))
	}
	prof := cfg.Profiles[0]
	if prof.Plugins == nil {
		return errors.New("docs/deploy.md's profile has no plugins")
	}
	// After defaulting, multiPoint holds the default plugins too; the wasm
	// plugin is the one whose args are the wasm form (guestURL), kept raw.
	for _, pc := range prof.PluginConfig {
		u, ok := pc.Args.(*runtime.Unknown)
		if !ok {
			continue
		}
		var args struct {
			GuestURL    string `json:"guestURL"`
			GuestConfig string `json:"guestConfig"`
		}
		if err := json.Unmarshal(u.Raw, &args); err != nil {
			return fmt.Errorf("docs/deploy.md: args of %s: %w", pc.Name, err)
		}
		if !strings.HasPrefix(args.GuestURL, "file:///") {
			return fmt.Errorf("docs/deploy.md: guestURL %q of %s is not file:///...", args.GuestURL, pc.Name)
		}
		enabled := false
		for _, p := range prof.Plugins.MultiPoint.Enabled {
			enabled = enabled || p.Name == pc.Name
		}
		if !enabled {
			return fmt.Errorf("docs/deploy.md: %s has wasm args but is not enabled under multiPoint", pc.Name)
		}
		fmt.Printf("deploy.md KubeSchedulerConfiguration: loaded and validated by kube-scheduler v1.33.4's loader (plugin %s under multiPoint, guestURL %s, guestConfig %s)\n", pc.Name, args.GuestURL, args.GuestConfig)
		return nil
	}
	return errors.New("docs/deploy.md: no pluginConfig with wasm args (guestURL) kept for its plugin")
}

// kguestRow is one line of `kguest run --json`.
type kguestRow struct {
	Node   string   `json:"node"`
	Filter *string  `json:"filter"` // null: the plugin exports no Filter (not run)
	Score  *float64 `json:"score"`
}

// kguestPicks runs `kguest run PLUGIN --pod POD --nodes NODES --config CFG
// --json` and returns the nodes a scheduler may bind the pod to on kguest's
// decision: those that pass Filter (or whose Filter did not run: the plugin
// exports none) with the highest score (all of them when Score did not run).
func kguestPicks(kguest, wasm, podFile, nodesFile, configFile string) ([]string, error) {
	args := []string{"run", wasm, "--pod", podFile, "--nodes", nodesFile, "--json"}
	if configFile != "" {
		args = append(args, "--config", configFile)
	}
	cmd := exec.Command(kguest, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("kguest %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var rows []kguestRow
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r kguestRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("kguest run --json line %q: %w", sc.Text(), err)
		}
		rows = append(rows, r)
	}
	best := -1.0
	var picks []string
	for _, r := range rows {
		if r.Filter != nil && *r.Filter != "Success" {
			continue
		}
		s := 0.0
		if r.Score != nil {
			s = *r.Score
		}
		switch {
		case s > best:
			best, picks = s, []string{r.Node}
		case s == best:
			picks = append(picks, r.Node)
		}
	}
	if len(picks) == 0 {
		return nil, fmt.Errorf("kguest run %s: no node passes Filter for %s", wasm, podFile)
	}
	sort.Strings(picks)
	return picks, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// checkProfile is one scheduler profile of the correctness run.
type checkProfile struct {
	schedulerName string
	wasm          string // kguest guest, under the plugins folder
	guestConfig   string // kguest --config; the native plugin's args
}

const checkSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
leaderElection:
  leaderElect: false
profiles:
%s`

// Each profile enables NodeNumber under multiPoint and, so that its score
// alone ranks the nodes, disables every default Score plugin ("*") and
// enables NodeNumber again under score. Default Filter plugins stay (the
// nodes pass them all).
const checkProfileYAML = `- schedulerName: %s
  plugins:
    multiPoint:
      enabled:
      - name: NodeNumber
    score:
      enabled:
      - name: NodeNumber
      disabled:
      - name: "*"
  pluginConfig:
  - name: NodeNumber
    args: %s
`

// runCheck is the `check` subcommand: docs/deploy.md's configuration through
// the scheduler's loader, then pods bound by the real kube-scheduler (with
// our native NodeNumber) compared with kguest's nodenumber decision.
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
	if err := checkDeployConfig(dir, opts.deploy); err != nil {
		return err
	}
	for _, f := range []string{opts.kguest, filepath.Join(opts.plugins, "nodenumber.wasm")} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("missing %s (cargo build -p kguest-cli; cargo xtask examples)", f)
		}
	}

	started := time.Now()
	c, err := startCluster(dir)
	if err != nil {
		return err
	}
	defer c.stop()
	fmt.Printf("cluster up in %.1f s (etcd %s, kube-apiserver %s)\n", time.Since(started).Seconds(), c.etcd.Clients[0].Addr(), c.config.Host)
	ctx := context.Background()

	// Ten nodes node-0 … node-9 and, per profile, pods whose names end in
	// each digit, and two whose names end in no digit (PreScore skips).
	var nodes []*v1.Node
	for i := 0; i < 10; i++ {
		nodes = append(nodes, testNode(fmt.Sprintf("node-%d", i)))
	}
	if err := createNodes(ctx, c.client, nodes); err != nil {
		return err
	}
	stored, err := c.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
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
	if err := writeJSON(nodesFile, list); err != nil {
		return err
	}

	profiles := []checkProfile{
		{"nodenumber", "nodenumber.wasm", `{"reverse": false}`},
		{"nodenumber-reverse", "nodenumber.wasm", `{"reverse": true}`},
	}
	var profileYAML strings.Builder
	for _, p := range profiles {
		fmt.Fprintf(&profileYAML, checkProfileYAML, p.schedulerName, p.guestConfig)
	}
	sched, err := startScheduler(dir, "check", fmt.Sprintf(checkSchedulerConfig, c.kubeconfig, profileYAML.String()))
	if err != nil {
		return err
	}
	defer sched.stop()

	bound, total := 0, 0
	var mismatches []string
	for _, p := range profiles {
		ns := "e2e-" + p.schedulerName
		if err := createNamespace(ctx, c.client, ns); err != nil {
			return err
		}
		w, err := watchBindings(c.client, ns)
		if err != nil {
			return err
		}
		var pods []*v1.Pod
		var names []string
		for _, suffix := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "x", "web"} {
			name := "pod-" + suffix
			pods = append(pods, testPod(ns, name, p.schedulerName))
			names = append(names, name)
		}
		created, err := createPods(ctx, c.client, pods)
		if err != nil {
			w.close()
			return err
		}
		if _, err := w.waitFor(names, 2*time.Minute, sched.exited); err != nil {
			w.close()
			return fmt.Errorf("profile %s: %w (scheduler log: %s)", p.schedulerName, err, sched.logPath)
		}
		configFile := filepath.Join(dir, p.schedulerName+"-config.json")
		if err := os.WriteFile(configFile, []byte(p.guestConfig), 0o644); err != nil {
			w.close()
			return err
		}
		for _, pod := range created {
			pod.APIVersion, pod.Kind = "v1", "Pod"
			podFile := filepath.Join(dir, ns+"-"+pod.Name+".json")
			if err := writeJSON(podFile, pod); err != nil {
				w.close()
				return err
			}
			picks, err := kguestPicks(opts.kguest, filepath.Join(opts.plugins, p.wasm), podFile, nodesFile, configFile)
			if err != nil {
				w.close()
				return err
			}
			node := w.nodeOf(pod.Name)
			total++
			if contains(picks, node) {
				bound++
			} else {
				mismatches = append(mismatches, fmt.Sprintf("%s %s/%s: bound to %s, kguest picks %v", p.schedulerName, ns, pod.Name, node, picks))
			}
		}
		w.close()
	}
	for _, m := range mismatches {
		fmt.Println("MISMATCH " + m)
	}
	fmt.Printf("scheduler e2e (native NodeNumber in kube-scheduler v1.33.4; KSW wasm plugin blocked): %d/%d pods bound where kguest picks\n", bound, total)
	if bound != total {
		return fmt.Errorf("%d of %d pods bound elsewhere than kguest picks", total-bound, total)
	}
	ok = true
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
