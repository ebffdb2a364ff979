package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"kguest.dev/tests/extender-e2e/harness/nodenumber"
)

// nativeNodeNumber is harness/nodenumber's decision as a plugin of 1.33's
// scheduling framework (k8s.io/kubernetes/pkg/scheduler/framework), with
// Node/Add as its cluster event.
type nativeNodeNumber struct{ args nodenumber.Args }

var (
	_ framework.PreScorePlugin    = (*nativeNodeNumber)(nil)
	_ framework.ScorePlugin       = (*nativeNodeNumber)(nil)
	_ framework.EnqueueExtensions = (*nativeNodeNumber)(nil)
)

type nodeNumberState struct{ digit byte }

func (s *nodeNumberState) Clone() framework.StateData { return s }

const nodeNumberStateKey = framework.StateKey("PreScore" + nodenumber.Name)

func newNativeNodeNumber(_ context.Context, obj runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	var raw []byte
	if u, ok := obj.(*runtime.Unknown); ok && u != nil {
		raw = u.Raw
	}
	args, err := nodenumber.ParseArgs(raw)
	return &nativeNodeNumber{args: args}, err
}

func (p *nativeNodeNumber) Name() string { return nodenumber.Name }

func (p *nativeNodeNumber) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	d, ok := nodenumber.Digit(pod.Name)
	if !ok {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(nodeNumberStateKey, &nodeNumberState{digit: d})
	return nil
}

func (p *nativeNodeNumber) Score(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	data, err := state.Read(nodeNumberStateKey)
	if err != nil {
		return p.args.Score(0, false, nodeInfo.Node().Name), nil
	}
	return p.args.Score(data.(*nodeNumberState).digit, true, nodeInfo.Node().Name), nil
}

func (p *nativeNodeNumber) ScoreExtensions() framework.ScoreExtensions { return nil }

func (p *nativeNodeNumber) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
	}, nil
}
