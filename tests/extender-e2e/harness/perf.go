package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"kguest.dev/tests/extender-e2e/harness/loopback"
	"kguest.dev/tests/extender-e2e/harness/nodenumber"
)

// PerfOptions are the `perf` subcommand's flags; the defaults are KSW's
// scheduler_perf shape (500 nodes, 500 initial pods, 1,000 measured).
type PerfOptions struct {
	Options
	Nodes, InitPods, MeasuredPods, Rounds int
	KSW                                   string // KSW's material (proto-vendor/ksw), where the release runs KSW's variants
}

// The variants every release times, by name.
const (
	variantDefault  = "default profile"
	variantNative   = "+ native Go NodeNumber"
	variantExtender = "+ kguest-extender (nodenumber)"
	// The same extender block without filterVerb.
	variantExtenderPrioritize = "+ kguest-extender, prioritize only"
	// A profile whose pods the scheduler can batch: the default plugins,
	// PodTopologySpread without the system's default constraints (with
	// them no pod is batchable, as the counters show).
	variantBatchable         = "batchable profile"
	variantBatchableExtender = "batchable profile + kguest-extender"
	variantBatchableOff      = "batchable profile, batching off"
	// VariantKSWTinyGo is the name a release's KSW variants give upstream's
	// TinyGo nodenumber through KSW's wasm plugin (the goal's reference).
	VariantKSWTinyGo = "+ KSW + TinyGo nodenumber"
)

// Perf is the `perf` subcommand: one throughput run (loopback.Throughput:
// scheduler_perf's shape, the rounds interleaved, medians) of the default
// profile; the same plus our native Go NodeNumber under multiPoint (KSW's
// scheduler_perf "PluginOnly" shape); the same plus deploy/extender's
// extender block with kguest-extender serving deploy/extender/plugins.yaml
// (NodeNumber) from its node cache; and, where the release has them, KSW's
// wasm plugin with upstream's TinyGo and kguest's nodenumber. It prints
// each variant's median with ratios, the goals (met or missed, never
// asserted) and, where the scheduler counts opportunistic batching
// (KEP-5598, 1.35 on), what each variant's measured schedulers counted.
func Perf(rel Release, opts PerfOptions) (err error) {
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
	_, _, saKubeconfig, err := r.extenderAccount()
	if err != nil {
		return err
	}
	var nodes []*v1.Node
	for i := 0; i < opts.Nodes; i++ {
		nodes = append(nodes, loopback.TestNode(fmt.Sprintf("node-%d", i)))
	}
	if err := loopback.CreateNodes(r.ctx, r.cluster.Client, nodes); err != nil {
		return err
	}
	_, err = r.serveExtender(saKubeconfig, deployProfile)
	defer r.ext.stop()
	if err != nil {
		return err
	}
	variants, err := r.perfVariants()
	if err != nil {
		return err
	}
	if rel.Batching {
		batchable, err := r.batchableVariants()
		if err != nil {
			return err
		}
		variants = append(variants, batchable...)
	}
	if rel.KSW != nil {
		ksw, err := rel.KSW(opts.KSW, opts.Plugins, r.cluster.Kubeconfig)
		if err != nil {
			return err
		}
		variants = append(variants, ksw...)
	}
	fmt.Printf("throughput run, kube-scheduler %s: %d nodes, %d initial pods, %d measured pods, %d round(s)\n", opts.Release, opts.Nodes, opts.InitPods, opts.MeasuredPods, opts.Rounds)
	t := loopback.Throughput{Cluster: r.cluster, Dir: dir, InitPods: opts.InitPods, MeasuredPods: opts.MeasuredPods, Rounds: opts.Rounds, Verbosity: 2, Metrics: true}
	results, err := t.Run(r.ctx, variants, func(round int, v loopback.Variant, res loopback.Result) {
		fmt.Printf("  round %d %-38s %8.1f pods/s (%d pods bound in %.2f s)\n", round+1, v.Name, res.PodsPer, opts.MeasuredPods, res.Seconds)
	})
	if err != nil {
		return err
	}
	printPerf(opts.Release, variants, results)
	return r.printExtenderMetrics()
}

// printExtenderMetrics prints, from kguest-extender's own /metrics and its
// CPU time, what its answers cost over the whole run (every variant that
// calls it, initial pods included): requests per verb, the mean time to
// answer one and its phases, and CPU per request.
func (r *run) printExtenderMetrics() error {
	status, body, err := r.ext.get("/metrics")
	if err != nil || status != 200 {
		return fmt.Errorf("kguest-extender /metrics: status %d: %v", status, err)
	}
	m := loopback.ParseText(body)
	var requests float64
	for _, verb := range []string{"filter", "prioritize"} {
		n := m.By("kguest_extender_request_duration_seconds_count", "verb")[verb]
		requests += n
		fmt.Printf("kguest-extender %s: %.0f requests, %.3f ms mean to answer one\n", verb, n, m.Mean("kguest_extender_request_duration_seconds", "verb", verb)*1000)
	}
	fmt.Printf("kguest-extender phases, mean per answered request: decode (JSON, Pod to protobuf, snapshot) %.3f ms, plugins and answer %.3f ms\n",
		m.Mean("kguest_extender_request_phase_seconds", "phase", "decode")*1000, m.Mean("kguest_extender_request_phase_seconds", "phase", "plugins")*1000)
	if cpu, err := r.ext.cpuSeconds(); err == nil && requests > 0 {
		fmt.Printf("kguest-extender CPU: %.1f s over the run, %.3f ms per request\n", cpu, cpu/requests*1000)
	} else if err != nil {
		return err
	}
	return nil
}

// perfVariants are the default profile, + the native NodeNumber and +
// kguest-extender, as kube-scheduler configurations.
func (r *run) perfVariants() ([]loopback.Variant, error) {
	base := func() map[string]any {
		return map[string]any{
			"apiVersion":       "kubescheduler.config.k8s.io/v1",
			"kind":             "KubeSchedulerConfiguration",
			"clientConnection": map[string]any{"kubeconfig": r.cluster.Kubeconfig, "qps": 5000, "burst": 5000},
			"leaderElection":   map[string]any{"leaderElect": false},
		}
	}
	native := base()
	native["profiles"] = []any{map[string]any{
		"schedulerName": "default-scheduler",
		"plugins": map[string]any{"multiPoint": map[string]any{
			"enabled": []any{map[string]any{"name": nodenumber.Name}},
		}},
	}}
	ext, err := r.block.forLoopback(r.ext.port, r.files, nil)
	if err != nil {
		return nil, err
	}
	extender := base()
	extender["extenders"] = []any{ext}
	// deploy/extender's profile has no Filter: without filterVerb the
	// scheduler makes one call per pod instead of two.
	scoreOnly := map[string]any{}
	for k, v := range ext {
		if k != "filterVerb" {
			scoreOnly[k] = v
		}
	}
	prioritizeOnly := base()
	prioritizeOnly["extenders"] = []any{scoreOnly}
	var variants []loopback.Variant
	for _, v := range []struct {
		name string
		cfg  map[string]any
	}{{variantDefault, base()}, {variantNative, native}, {variantExtender, extender}, {variantExtenderPrioritize, prioritizeOnly}} {
		config, err := yaml.Marshal(v.cfg)
		if err != nil {
			return nil, err
		}
		variants = append(variants, loopback.Variant{Name: v.name, Config: config})
	}
	return variants, nil
}

// batchableVariants are KEP-5598's question: the batchable profile, the
// same with deploy/extender's extender block, and the same with the
// OpportunisticBatching feature gate off (what batching is worth there).
func (r *run) batchableVariants() ([]loopback.Variant, error) {
	cfg := func(extender bool) ([]byte, error) {
		c := map[string]any{
			"apiVersion":       "kubescheduler.config.k8s.io/v1",
			"kind":             "KubeSchedulerConfiguration",
			"clientConnection": map[string]any{"kubeconfig": r.cluster.Kubeconfig, "qps": 5000, "burst": 5000},
			"leaderElection":   map[string]any{"leaderElect": false},
			"profiles": []any{map[string]any{
				"schedulerName": "default-scheduler",
				"pluginConfig": []any{map[string]any{
					"name": "PodTopologySpread",
					"args": map[string]any{"defaultingType": "List"},
				}},
			}},
		}
		if extender {
			ext, err := r.block.forLoopback(r.ext.port, r.files, nil)
			if err != nil {
				return nil, err
			}
			c["extenders"] = []any{ext}
		}
		return yaml.Marshal(c)
	}
	plain, err := cfg(false)
	if err != nil {
		return nil, err
	}
	withExtender, err := cfg(true)
	if err != nil {
		return nil, err
	}
	return []loopback.Variant{
		{Name: variantBatchable, Config: plain},
		{Name: variantBatchableExtender, Config: withExtender},
		{Name: variantBatchableOff, Config: plain, Args: []string{"--feature-gates=OpportunisticBatching=false"}},
	}, nil
}

// printPerf prints each variant's median with its ratios, the goals, and
// the batching counters.
func printPerf(release string, variants []loopback.Variant, results map[string][]loopback.Result) {
	median := func(name string) float64 { return loopback.Median(results[name]) }
	tinyGo := median(VariantKSWTinyGo)
	for _, v := range variants {
		m := median(v.Name)
		lo, hi := loopback.Spread(results[v.Name])
		line := fmt.Sprintf("throughput %s %s: %.1f pods/s (rounds %.0f-%.0f); %.2fx the default profile, %.2fx native NodeNumber", release, v.Name, m, lo, hi, m/median(variantDefault), m/median(variantNative))
		if tinyGo > 0 {
			line += fmt.Sprintf(", %.2fx KSW + TinyGo", m/tinyGo)
		}
		fmt.Println(line)
	}
	// Where a pod's scheduling time goes, from the measured schedulers' own
	// histograms (all rounds): the scheduling algorithm (Filter and Score
	// plugins, extender calls, node selection; one pod at a time, so it
	// bounds the throughput) per attempt, and what each variant adds to it
	// against the default profile.
	algorithm := map[string]float64{}
	for _, v := range variants {
		all := loopback.Counters{}
		for _, res := range results[v.Name] {
			all.Add(res.Counters)
		}
		algorithm[v.Name] = all.Mean("scheduler_scheduling_algorithm_duration_seconds") * 1000
		fmt.Printf("cycle %s %s: %.2f ms per pod in the scheduling algorithm (%+.2f ms against the default profile)\n", release, v.Name, algorithm[v.Name], algorithm[v.Name]-algorithm[variantDefault])
	}
	goal := func(what string, ratio, want float64) {
		verdict := "met"
		if ratio < want {
			verdict = "missed"
		}
		fmt.Printf("goal %s: kguest-extender >= %gx %s: %.2fx, %s\n", release, want, what, ratio, verdict)
	}
	ext := median(variantExtender)
	goal("native NodeNumber", ext/median(variantNative), 0.8)
	goal("native NodeNumber (prioritize only)", median(variantExtenderPrioritize)/median(variantNative), 0.8)
	if tinyGo > 0 {
		goal("KSW + TinyGo nodenumber", ext/tinyGo, 3)
	}
	// KEP-5598's opportunistic batching, as the measured schedulers counted
	// it (all rounds): a release without it has no such counter.
	batching := false
	for _, v := range variants {
		for _, res := range results[v.Name] {
			if len(res.Counters.By("scheduler_batch_attempts_total", "result"))+len(res.Counters.By("scheduler_batch_cache_flushed_total", "reason")) > 0 {
				batching = true
			}
		}
	}
	if !batching {
		return
	}
	hints := map[string]float64{}
	for _, v := range variants {
		attempts, flushed := map[string]float64{}, map[string]float64{}
		counted := 0
		for _, res := range results[v.Name] {
			if res.Counters != nil {
				counted++
			}
			for k, n := range res.Counters.By("scheduler_batch_attempts_total", "result") {
				attempts[k] += n
			}
			for k, n := range res.Counters.By("scheduler_batch_cache_flushed_total", "reason") {
				flushed[k] += n
			}
		}
		fmt.Printf("batching %s %s (%d of %d rounds counted): attempts %s; cache flushes %s\n", release, v.Name, counted, len(results[v.Name]), loopback.Format(attempts), loopback.Format(flushed))
		hints[v.Name] = attempts["hint_used"]
	}
	fmt.Printf("KEP-5598 %s: pods placed from a batch hint, all rounds: default profile %.0f, batchable profile %.0f, batchable profile + kguest-extender %.0f\n", release, hints[variantDefault], hints[variantBatchable], hints[variantBatchableExtender])
	batchable := median(variantBatchable)
	fmt.Printf("KEP-5598 %s: against the batchable profile, batching off runs at %.2fx, + kguest-extender at %.2fx; against the default profile, + kguest-extender runs at %.2fx\n", release, median(variantBatchableOff)/batchable, median(variantBatchableExtender)/batchable, ext/median(variantDefault))
}
