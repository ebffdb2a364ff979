package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	cache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	wasm "sigs.k8s.io/kube-scheduler-wasm-extension/scheduler/plugin"
)

// Case is one guest on one Pod and its Nodes, as the Rust test writes it.
type Case struct {
	Name        string    `json:"name"`
	Guest       string    `json:"guest"`
	Args        []string  `json:"args"`
	GuestConfig string    `json:"guestConfig"`
	LogSeverity int32     `json:"logSeverity"`
	Pod         v1.Pod    `json:"pod"`
	Nodes       []v1.Node `json:"nodes"`
	// Profile, when set, replaces Guest: several plugins in one profile.
	Profile []ProfilePlugin `json:"profile"`
	// SchedulerConfig, when set, replaces Guest and Profile: a
	// KubeSchedulerConfiguration (JSON) whose first profile is run.
	SchedulerConfig json.RawMessage `json:"schedulerConfig"`
}

// Record is one thing the host or guest did: a hook's answer, a log line, a
// recorded event. Empty fields are left out, so both sides write only what
// applies.
type Record map[string]any

const pluginName = "wasm"

// runCase loads the guest as the scheduler would and calls every hook it
// exports, in the order of a scheduling cycle.
func runCase(c Case) ([]Record, error) {
	ctx := context.Background()
	if len(c.Profile) > 0 || c.SchedulerConfig != nil {
		// Decisions only: the single-plugin cases compare logs and events.
		rec := &recorder{}
		nodes := make([]*v1.Node, len(c.Nodes))
		for i := range c.Nodes {
			nodes[i] = &c.Nodes[i]
		}
		err := runProfile(ctx, c, nodes, rec)
		return rec.records, err
	}
	bin, err := os.ReadFile(c.Guest)
	if err != nil {
		return nil, err
	}
	exports, err := exportedFunctions(ctx, bin)
	if err != nil {
		return nil, err
	}
	rec := &recorder{}
	capture.start(rec)
	defer capture.stop()

	nodes := make([]*v1.Node, len(c.Nodes))
	for i := range c.Nodes {
		nodes[i] = &c.Nodes[i]
	}
	pod := &c.Pod
	fwk, pl, err := newFramework(ctx, c, nodes, rec)
	if err != nil {
		// Both hosts refuse the guest. The texts are each host's own, but
		// both carry what the guest wrote while loading the same way.
		rec.add(Record{"load": "error", "guestMessage": guestMessage(err.Error())})
		return rec.records, nil
	}
	defer func() { _ = fwk.Close() }()
	run := &cycle{rec: rec, exports: exports, pod: pod, nodes: nodes, pl: pl}
	run.all(ctx)
	return rec.records, nil
}

func exportedFunctions(ctx context.Context, bin []byte) (map[string]bool, error) {
	// The interpreter only decodes the module: listing exports needs no code.
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	mod, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return map[string]bool{}, nil // the plugin's load fails too
	}
	exports := map[string]bool{}
	for name := range mod.ExportedFunctions() {
		exports[name] = true
	}
	return exports, nil
}

// newFramework builds the framework a scheduler profile gets: PrioritySort,
// DefaultBinder and the wasm plugin under multiPoint, configured by the
// case, over a snapshot of its Nodes. It returns the plugin the factory made.
func newFramework(ctx context.Context, c Case, nodes []*v1.Node, rec *recorder) (framework.Framework, framework.Plugin, error) {
	args, err := json.Marshal(wasm.PluginConfig{
		GuestURL:    "file://" + c.Guest,
		GuestConfig: c.GuestConfig,
		LogSeverity: c.LogSeverity,
		Args:        c.Args,
	})
	if err != nil {
		return nil, nil, err
	}
	var made framework.Plugin
	factory := wasm.PluginFactory(pluginName)
	registry := frameworkruntime.Registry{
		queuesort.Name:     queuesort.New,
		defaultbinder.Name: defaultbinder.New,
		pluginName: func(ctx context.Context, obj runtime.Object, h framework.Handle) (framework.Plugin, error) {
			pl, err := factory(ctx, obj, h)
			made = pl
			return pl, err
		},
	}
	profile := &config.KubeSchedulerProfile{
		SchedulerName: "default-scheduler",
		Plugins: &config.Plugins{
			QueueSort:  config.PluginSet{Enabled: []config.Plugin{{Name: queuesort.Name}}},
			Bind:       config.PluginSet{Enabled: []config.Plugin{{Name: defaultbinder.Name}}},
			MultiPoint: config.PluginSet{Enabled: []config.Plugin{{Name: pluginName}}},
		},
		PluginConfig: []config.PluginConfig{{Name: pluginName, Args: &runtime.Unknown{Raw: args, ContentType: runtime.ContentTypeJSON}}},
	}
	fwk, err := frameworkruntime.NewFramework(ctx, registry, profile,
		frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(nil, nodes)),
		frameworkruntime.WithEventRecorder(rec),
	)
	if err != nil {
		return nil, nil, err
	}
	return fwk, made, nil
}

// cycle calls the hooks the guest exports, each as the framework would.
type cycle struct {
	rec     *recorder
	exports map[string]bool
	pod     *v1.Pod
	nodes   []*v1.Node
	pl      framework.Plugin
}

func (c *cycle) all(ctx context.Context) {
	state := framework.NewCycleState()
	events, _ := c.pl.(framework.EnqueueExtensions).EventsToRegister(ctx)
	list := make([]string, len(events))
	for i, e := range events {
		list[i] = fmt.Sprintf("%s/%d", e.Event.Resource, e.Event.ActionType)
	}
	c.rec.add(Record{"hook": "enqueue", "events": list})

	if c.exports["prefilter"] {
		result, status := c.pl.(framework.PreFilterPlugin).PreFilter(ctx, state, c.pod)
		r := statusRecord("prefilter", "", status)
		if result != nil && result.NodeNames != nil {
			names := result.NodeNames.UnsortedList()
			sort.Strings(names)
			r["nodeNames"] = names
		}
		c.rec.add(r)
	}
	target := &framework.PodInfo{Pod: c.pod}
	if c.exports["addpod"] && len(c.nodes) > 0 {
		status := c.pl.(framework.PreFilterPlugin).PreFilterExtensions().AddPod(ctx, state, c.pod, target, c.nodeInfo(0))
		c.rec.add(statusRecord("addpod", c.nodes[0].Name, status))
	}
	if c.exports["removepod"] && len(c.nodes) > 0 {
		status := c.pl.(framework.PreFilterPlugin).PreFilterExtensions().RemovePod(ctx, state, c.pod, target, c.nodeInfo(0))
		c.rec.add(statusRecord("removepod", c.nodes[0].Name, status))
	}

	passed := []int{}
	failed := framework.NewDefaultNodeToStatus()
	for i, node := range c.nodes {
		if !c.exports["filter"] {
			passed = append(passed, i)
			continue
		}
		status := c.pl.(framework.FilterPlugin).Filter(ctx, state, c.pod, c.nodeInfo(i))
		c.rec.add(statusRecord("filter", node.Name, status))
		if status.IsSuccess() {
			passed = append(passed, i)
		} else {
			failed.Set(node.Name, status)
		}
	}
	if c.exports["postfilter"] {
		result, status := c.pl.(framework.PostFilterPlugin).PostFilter(ctx, state, c.pod, failed)
		r := statusRecord("postfilter", "", status)
		if result != nil && result.NominatingInfo != nil {
			r["mode"] = int(result.NominatingMode)
			r["nominated"] = result.NominatedNodeName
		}
		c.rec.add(r)
	}

	infos := make([]*framework.NodeInfo, len(passed))
	for j, i := range passed {
		infos[j] = c.nodeInfo(i)
	}
	if c.exports["prescore"] {
		status := c.pl.(framework.PreScorePlugin).PreScore(ctx, state, c.pod, infos)
		c.rec.add(statusRecord("prescore", "", status))
	}
	chosen := ""
	if len(passed) > 0 {
		chosen = c.nodes[passed[0]].Name
	} else if len(c.nodes) > 0 {
		chosen = c.nodes[0].Name
	}
	if c.exports["score"] {
		scores := framework.NodeScoreList{}
		for _, i := range passed {
			name := c.nodes[i].Name
			score, status := c.pl.(framework.ScorePlugin).Score(ctx, state, c.pod, c.nodeInfo(i))
			r := statusRecord("score", name, status)
			r["score"] = score
			c.rec.add(r)
			scores = append(scores, framework.NodeScore{Name: name, Score: score})
		}
		if c.exports["normalizescore"] {
			status := c.pl.(framework.ScorePlugin).ScoreExtensions().NormalizeScore(ctx, state, c.pod, scores)
			r := statusRecord("normalizescore", "", status)
			// By node name: KSW's host rebuilds the list from the guest's
			// JSON object in Go's map order, which varies run to run.
			list := scoreList(scores)
			sort.Strings(list)
			r["scores"] = list
			c.rec.add(r)
		}
		best := int64(-1 << 62)
		for _, s := range scores {
			if s.Score > best {
				best, chosen = s.Score, s.Name
			}
		}
	}
	if chosen == "" {
		return
	}
	if c.exports["reserve"] {
		status := c.pl.(framework.ReservePlugin).Reserve(ctx, state, c.pod, chosen)
		c.rec.add(statusRecord("reserve", chosen, status))
	}
	if c.exports["permit"] {
		status, timeout := c.pl.(framework.PermitPlugin).Permit(ctx, state, c.pod, chosen)
		r := statusRecord("permit", chosen, status)
		r["timeoutMs"] = timeout.Milliseconds()
		c.rec.add(r)
	}
	if c.exports["prebind"] {
		status := c.pl.(framework.PreBindPlugin).PreBind(ctx, state, c.pod, chosen)
		c.rec.add(statusRecord("prebind", chosen, status))
	}
	if c.exports["bind"] {
		status := c.pl.(framework.BindPlugin).Bind(ctx, state, c.pod, chosen)
		c.rec.add(statusRecord("bind", chosen, status))
	}
	if c.exports["postbind"] {
		c.pl.(framework.PostBindPlugin).PostBind(ctx, state, c.pod, chosen)
		c.rec.add(Record{"hook": "postbind", "node": chosen})
	}
	if c.exports["unreserve"] {
		c.pl.(framework.ReservePlugin).Unreserve(ctx, state, c.pod, chosen)
		c.rec.add(Record{"hook": "unreserve", "node": chosen})
	}
}

func (c *cycle) nodeInfo(i int) *framework.NodeInfo {
	info := framework.NewNodeInfo()
	info.SetNode(c.nodes[i])
	return info
}

func scoreList(scores framework.NodeScoreList) []string {
	out := make([]string, len(scores))
	for i, s := range scores {
		out[i] = fmt.Sprintf("%s=%d", s.Name, s.Score)
	}
	return out
}

// statusRecord is a hook's status as the framework sees it: a nil status
// is Success with no reason.
func statusRecord(hook, node string, status *framework.Status) Record {
	r := Record{"hook": hook, "code": int(status.Code()), "reason": status.Message()}
	if node != "" {
		r["node"] = node
	}
	return r
}

// loadMarker starts what KSW's host reports for a guest that failed in
// `_start` (decorateError in scheduler/plugin/guest.go): what the guest
// wrote to stdout/stderr, a line break, then wazero's error.
const loadMarker = "wasm: instantiate error: "

// guestMessage is the first line after loadMarker in a load error, or ""
// without the marker: the line an operator reads in klog.
func guestMessage(err string) string {
	_, after, found := strings.Cut(err, loadMarker)
	if !found {
		return ""
	}
	line, _, _ := strings.Cut(after, "\n")
	return line
}
