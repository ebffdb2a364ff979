package main

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"

	"kguest.dev/tests/extender-e2e/harness/nodenumber"
)

// nativeNodeNumber is harness/nodenumber's decision as a plugin of the
// scheduling framework API 1.35 moved to k8s.io/kube-scheduler/framework
// (CycleState and NodeInfo are interfaces there), with Node/Add as its
// cluster event.
type nativeNodeNumber struct{ args nodenumber.Args }

var (
	_ fwk.PreScorePlugin    = (*nativeNodeNumber)(nil)
	_ fwk.ScorePlugin       = (*nativeNodeNumber)(nil)
	_ fwk.EnqueueExtensions = (*nativeNodeNumber)(nil)
)

type nodeNumberState struct{ digit byte }

func (s *nodeNumberState) Clone() fwk.StateData { return s }

const nodeNumberStateKey = fwk.StateKey("PreScore" + nodenumber.Name)

func newNativeNodeNumber(_ context.Context, obj runtime.Object, _ fwk.Handle) (fwk.Plugin, error) {
	var raw []byte
	if u, ok := obj.(*runtime.Unknown); ok && u != nil {
		raw = u.Raw
	}
	args, err := nodenumber.ParseArgs(raw)
	return &nativeNodeNumber{args: args}, err
}

func (p *nativeNodeNumber) Name() string { return nodenumber.Name }

func (p *nativeNodeNumber) PreScore(_ context.Context, state fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	d, ok := nodenumber.Digit(pod.Name)
	if !ok {
		return fwk.NewStatus(fwk.Skip)
	}
	state.Write(nodeNumberStateKey, &nodeNumberState{digit: d})
	return nil
}

func (p *nativeNodeNumber) Score(_ context.Context, state fwk.CycleState, _ *v1.Pod, nodeInfo fwk.NodeInfo) (int64, *fwk.Status) {
	data, err := state.Read(nodeNumberStateKey)
	if err != nil {
		return p.args.Score(0, false, nodeInfo.Node().Name), nil
	}
	return p.args.Score(data.(*nodeNumberState).digit, true, nodeInfo.Node().Name), nil
}

func (p *nativeNodeNumber) ScoreExtensions() fwk.ScoreExtensions { return nil }

func (p *nativeNodeNumber) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add}},
	}, nil
}
