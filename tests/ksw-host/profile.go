package main

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
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
	var wasmNames map[string]bool
	if c.SchedulerConfig != nil {
		var err error
		if profile, wasmNames, err = configProfile(c.SchedulerConfig, registry); err != nil {
			return err
		}
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
	if wasmNames != nil {
		rec.add(pointsRecord(fwk.ListPlugins(), wasmNames))
	}
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

// configProfile is the first profile of a KubeSchedulerConfiguration as
// kube-scheduler loads it (the config scheme's decoder, which defaults it),
// with the wasm plugins KSW's cmd/scheduler registers added to registry: its
// multiPoint plugins whose pluginConfig args decode as wasm.PluginConfig.
// kube-scheduler's own default plugins are left out of every point's
// enabled list but the queue-sort and bind plugins registry has; the
// disabled lists stay as loaded, so the framework expands multiPoint as it
// would in the scheduler. Also returns the wasm plugins' names.
func configProfile(raw []byte, registry frameworkruntime.Registry) (*config.KubeSchedulerProfile, map[string]bool, error) {
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(raw, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("schedulerConfig: %w", err)
	}
	cfg, ok := obj.(*config.KubeSchedulerConfiguration)
	if !ok || len(cfg.Profiles) == 0 {
		return nil, nil, fmt.Errorf("schedulerConfig: a %v without profiles", gvk)
	}
	profile := cfg.Profiles[0]
	wasmArgs := map[string]bool{}
	var pluginConfig []config.PluginConfig
	for _, pc := range profile.PluginConfig {
		if frameworkruntime.DecodeInto(pc.Args, &wasm.PluginConfig{}) == nil {
			wasmArgs[pc.Name] = true
			pluginConfig = append(pluginConfig, pc)
		}
	}
	profile.PluginConfig = pluginConfig
	names := map[string]bool{}
	for _, p := range profile.Plugins.MultiPoint.Enabled {
		if wasmArgs[p.Name] {
			registry[p.Name] = wasm.PluginFactory(p.Name)
			names[p.Name] = true
		}
	}
	for _, set := range pluginSets(profile.Plugins) {
		var enabled []config.Plugin
		for _, p := range set.Enabled {
			if _, ok := registry[p.Name]; ok || wasmArgs[p.Name] {
				enabled = append(enabled, p)
			}
		}
		set.Enabled = enabled
	}
	return &profile, names, nil
}

// pluginSets are a profile's plugin lists, each point's under its
// configuration key.
func pluginSets(p *config.Plugins) map[string]*config.PluginSet {
	return map[string]*config.PluginSet{
		"multiPoint": &p.MultiPoint, "preEnqueue": &p.PreEnqueue, "queueSort": &p.QueueSort,
		"preFilter": &p.PreFilter, "filter": &p.Filter, "postFilter": &p.PostFilter,
		"preScore": &p.PreScore, "score": &p.Score, "reserve": &p.Reserve,
		"permit": &p.Permit, "preBind": &p.PreBind, "bind": &p.Bind, "postBind": &p.PostBind,
	}
}

// pointsRecord is the framework's own account (ListPlugins) of the wasm
// plugins at each extension point, in the order it runs them, with each
// Score plugin's weight.
func pointsRecord(listed *config.Plugins, wasmNames map[string]bool) Record {
	points := map[string][]string{}
	for key, set := range pluginSets(listed) {
		for _, p := range set.Enabled {
			if !wasmNames[p.Name] {
				continue
			}
			entry := p.Name
			if key == "score" {
				entry = fmt.Sprintf("%s=%d", p.Name, p.Weight)
			}
			points[key] = append(points[key], entry)
		}
	}
	return Record{"points": points}
}
