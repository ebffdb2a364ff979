package main

// Upstream's benchmark shapes with kguest's guests beside upstream's TinyGo
// ones, all in KSW's host (wazero):
//
//	KGUEST_PLUGIN_DIR=... KGUEST_KSW_DIR=... KGUEST_GUEST_DIR=... go test -run XXX -bench .
//
// (`cargo xtask test` builds the guests; see docs/benchmarks.md.)

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	wasm "sigs.k8s.io/kube-scheduler-wasm-extension/scheduler/plugin"
)

func init() { metrics.Register() }

func dirOf(b *testing.B, env string) string {
	dir := os.Getenv(env)
	if dir == "" {
		b.Fatalf("%s is not set (the guests' folder)", env)
	}
	return dir
}

func readYAML(b *testing.B, path string, into any) {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		b.Fatalf("%s: %v", path, err)
	}
}

// load makes the plugin through the framework, as runCase does.
func load(b *testing.B, guest string, args []string, config string, nodes []*v1.Node) framework.Plugin {
	c := Case{Name: filepath.Base(guest), Guest: guest, Args: args, GuestConfig: config}
	_, pl, err := newFramework(context.Background(), c, nodes, &recorder{})
	if err != nil {
		b.Fatalf("%s: %v", guest, err)
	}
	return pl
}

// BenchmarkFilterCycle: PreFilter (where exported) + Filter, a fresh cycle
// (new pod UID) each time, upstream's realistic Pod and Node.
func BenchmarkFilterCycle(b *testing.B) {
	ksw := dirOf(b, "KGUEST_KSW_DIR")
	plugins := dirOf(b, "KGUEST_PLUGIN_DIR")
	guests := dirOf(b, "KGUEST_GUEST_DIR")
	var pod v1.Pod
	var node v1.Node
	readYAML(b, filepath.Join(ksw, "scheduler/test/testdata/yaml/pod.yaml"), &pod)
	readYAML(b, filepath.Join(ksw, "scheduler/test/testdata/yaml/node.yaml"), &node)
	cases := []struct {
		name  string
		guest string
		args  []string
	}{
		{"kguest-nodename", filepath.Join(plugins, "nodename.wasm"), nil},
		{"kguest-fit", filepath.Join(plugins, "fit.wasm"), nil},
		{"kguest-taints", filepath.Join(plugins, "taints.wasm"), nil},
		{"floor-baseline-empty", filepath.Join(guests, "baseline_empty.wasm"), nil},
		{"floor-baseline-copy", filepath.Join(guests, "baseline_copy.wasm"), nil},
		{"nodename-view", filepath.Join(guests, "nodename_view.wasm"), nil},
		{"baseline-prost", filepath.Join(guests, "baseline_prost.wasm"), nil},
		{"baseline-json", filepath.Join(guests, "baseline_json.wasm"), nil},
		{"tinygo-filter", filepath.Join(ksw, "guest/testdata/filter/main.wasm"), []string{"test", "filter"}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			pl := load(b, tc.guest, tc.args, "", []*v1.Node{&node})
			pre, hasPre := pl.(framework.PreFilterPlugin)
			filter := pl.(framework.FilterPlugin)
			info := framework.NewNodeInfo()
			info.SetNode(&node)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := pod
				p.UID = types.UID(strconv.Itoa(i))
				state := framework.NewCycleState()
				if hasPre {
					pre.PreFilter(ctx, state, &p)
				}
				// The decision itself is ksw::go_host's business (fit rejects
				// this Pod for cpu on this Node).
				filter.Filter(ctx, state, &p, info)
			}
		})
	}
}

// BenchmarkNodeNumber: upstream's BenchmarkExample_NodeNumber Run step
// (PreScore + Score on the realistic Pod named for node happy8, node glad8).
func BenchmarkNodeNumber(b *testing.B) {
	ksw := dirOf(b, "KGUEST_KSW_DIR")
	plugins := dirOf(b, "KGUEST_PLUGIN_DIR")
	var pod v1.Pod
	readYAML(b, filepath.Join(ksw, "scheduler/test/testdata/yaml/pod.yaml"), &pod)
	pod.Spec.NodeName = "happy8"
	node := &v1.Node{}
	node.Name = "glad8"
	for _, tc := range []struct{ name, guest string }{
		{"kguest-nodenumber", filepath.Join(plugins, "nodenumber.wasm")},
		{"tinygo-nodenumber", filepath.Join(ksw, "examples/nodenumber/main.wasm")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			pl := load(b, tc.guest, nil, "", []*v1.Node{node})
			info := framework.NewNodeInfo()
			info.SetNode(node)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := pod
				p.UID = types.UID(strconv.Itoa(i))
				state := framework.NewCycleState()
				pl.(framework.PreScorePlugin).PreScore(ctx, state, &p, []*framework.NodeInfo{info})
				if _, s := pl.(framework.ScorePlugin).Score(ctx, state, &p, info); !s.IsSuccess() {
					b.Fatalf("score: %v", s)
				}
			}
		})
	}
}

// BenchmarkInstantiate: upstream's New step, wasm.NewFromConfig (read the
// guest, compile it, instantiate one guest, as KSW does for each plugin of
// each profile at start-up), with no cycle run. The plugins stay loaded
// until the end, so the growth of the Go heap (wazero's linear memories and
// module data are Go memory) and of the process's resident set (which also
// holds the compiled code) per plugin is what one loaded plugin costs.
func BenchmarkInstantiate(b *testing.B) {
	ksw := dirOf(b, "KGUEST_KSW_DIR")
	plugins := dirOf(b, "KGUEST_PLUGIN_DIR")
	cases := []struct {
		name  string
		guest string
		args  []string
	}{
		{"kguest-nodename", filepath.Join(plugins, "nodename.wasm"), nil},
		{"kguest-fit", filepath.Join(plugins, "fit.wasm"), nil},
		{"kguest-taints", filepath.Join(plugins, "taints.wasm"), nil},
		{"kguest-imagelocality", filepath.Join(plugins, "imagelocality.wasm"), nil},
		{"kguest-nodenumber", filepath.Join(plugins, "nodenumber.wasm"), nil},
		{"tinygo-filter", filepath.Join(ksw, "guest/testdata/filter/main.wasm"), []string{"test", "filter"}},
		{"tinygo-nodenumber", filepath.Join(ksw, "examples/nodenumber/main.wasm"), nil},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			cfg := wasm.PluginConfig{GuestURL: "file://" + tc.guest, Args: tc.args}
			loaded := make([]framework.Plugin, 0, b.N)
			heap0, rss0 := memoryNow(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pl, err := wasm.NewFromConfig(ctx, tc.name, cfg, nil)
				if err != nil {
					b.Fatalf("%s: %v", tc.guest, err)
				}
				loaded = append(loaded, pl)
			}
			b.StopTimer()
			heap1, rss1 := memoryNow(b)
			b.ReportMetric(float64(heap1-heap0)/float64(b.N), "heap-B/plugin")
			b.ReportMetric(float64(rss1-rss0)/float64(b.N), "rss-B/plugin")
			for _, pl := range loaded {
				if c, ok := pl.(io.Closer); ok {
					_ = c.Close()
				}
			}
		})
	}
}

// memoryNow is the Go heap in use after a collection, and the resident set
// (/proc/self/statm, Linux).
func memoryNow(b *testing.B) (heap, rss int64) {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		b.Fatalf("resident set: %v", err)
	}
	var size, pages int64
	if _, err := fmt.Sscan(string(statm), &size, &pages); err != nil {
		b.Fatalf("/proc/self/statm %q: %v", statm, err)
	}
	return int64(m.HeapInuse), pages * int64(os.Getpagesize())
}
