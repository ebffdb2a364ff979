package main

import (
	"context"
	"encoding/json"
	"fmt"

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

// ProfilePlugin is one wasm plugin of a profile case.
type ProfilePlugin struct {
	Name        string   `json:"name"`
	Guest       string   `json:"guest"`
	Args        []string `json:"args"`
	GuestConfig string   `json:"guestConfig"`
	Weight      int32    `json:"weight"`
}

// runProfile runs one scheduling cycle of several wasm plugins through the
// framework's own Run*Plugins (which merge statuses, normalize and weigh
// scores): each node's Filter status, and each feasible node's weighted
// scores and total.
func runProfile(ctx context.Context, c Case, nodes []*v1.Node, rec *recorder) error {
	registry := frameworkruntime.Registry{queuesort.Name: queuesort.New, defaultbinder.Name: defaultbinder.New}
	profile := &config.KubeSchedulerProfile{
		SchedulerName: "default-scheduler",
		Plugins: &config.Plugins{
			QueueSort: config.PluginSet{Enabled: []config.Plugin{{Name: queuesort.Name}}},
			Bind:      config.PluginSet{Enabled: []config.Plugin{{Name: defaultbinder.Name}}},
		},
	}
	for _, p := range c.Profile {
		args, err := json.Marshal(wasm.PluginConfig{GuestURL: "file://" + p.Guest, GuestConfig: p.GuestConfig, Args: p.Args})
		if err != nil {
			return err
		}
		registry[p.Name] = wasm.PluginFactory(p.Name)
		profile.Plugins.MultiPoint.Enabled = append(profile.Plugins.MultiPoint.Enabled, config.Plugin{Name: p.Name, Weight: p.Weight})
		profile.PluginConfig = append(profile.PluginConfig, config.PluginConfig{Name: p.Name, Args: &runtime.Unknown{Raw: args, ContentType: runtime.ContentTypeJSON}})
	}
	snapshot := cache.NewSnapshot(nil, nodes)
	fwk, err := frameworkruntime.NewFramework(ctx, registry, profile,
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithEventRecorder(&recorder{}),
	)
	if err != nil {
		rec.add(Record{"load": "error"})
		return nil
	}
	defer func() { _ = fwk.Close() }()
	state := framework.NewCycleState()
	pod := &c.Pod
	if _, status, _ := fwk.RunPreFilterPlugins(ctx, state, pod); !status.IsSuccess() {
		rec.add(statusRecord("prefilter", "", status))
		return nil
	}
	feasible := []*framework.NodeInfo{}
	for _, node := range nodes {
		info, err := snapshot.NodeInfos().Get(node.Name)
		if err != nil {
			return err
		}
		status := fwk.RunFilterPlugins(ctx, state, pod, info)
		rec.add(statusRecord("filter", node.Name, status))
		// An Error ends the cycle (schedulePod returns it as the pod's
		// scheduling error).
		if status.Code() == framework.Error {
			return nil
		}
		if status.IsSuccess() {
			feasible = append(feasible, info)
		}
	}
	// kube-scheduler's schedulePod takes a single feasible node without
	// scoring; Score runs only among several.
	if len(feasible) < 2 {
		return nil
	}
	if status := fwk.RunPreScorePlugins(ctx, state, pod, feasible); !status.IsSuccess() {
		rec.add(statusRecord("prescore", "", status))
		return nil
	}
	scores, status := fwk.RunScorePlugins(ctx, state, pod, feasible)
	if !status.IsSuccess() {
		rec.add(statusRecord("score", "", status))
		return nil
	}
	for _, node := range scores {
		list := make([]string, len(node.Scores))
		for i, s := range node.Scores {
			list[i] = fmt.Sprintf("%s=%d", s.Name, s.Score)
		}
		rec.add(Record{"node": node.Name, "scores": list, "total": node.TotalScore})
	}
	return nil
}
