package main

import (
	"context"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// nativeNodeNumber is our own Go plugin deciding as kguest's
// examples/nodenumber does (and upstream's TinyGo nodenumber): PreScore keeps
// the last digit of the pod's name (Skip when there is none, so Score does not
// run); Score gives 10 to a node whose name ends in that digit and 0 to the
// others, swapped by args `{"reverse": true}`. Node/Add is its cluster event.
// It is the "same plugin written natively" of the throughput comparison.
type nativeNodeNumber struct {
	reverse bool
}

const nativeNodeNumberName = "NodeNumber"

var (
	_ framework.PreScorePlugin    = (*nativeNodeNumber)(nil)
	_ framework.ScorePlugin       = (*nativeNodeNumber)(nil)
	_ framework.EnqueueExtensions = (*nativeNodeNumber)(nil)
)

type nodeNumberState struct{ digit byte }

func (s *nodeNumberState) Clone() framework.StateData { return s }

const nodeNumberStateKey = framework.StateKey("PreScore" + nativeNodeNumberName)

func newNativeNodeNumber(_ context.Context, obj runtime.Object, _ framework.Handle) (framework.Plugin, error) {
	p := &nativeNodeNumber{}
	if u, ok := obj.(*runtime.Unknown); ok && u != nil && len(u.Raw) > 0 {
		var args struct {
			Reverse bool `json:"reverse"`
		}
		if err := json.Unmarshal(u.Raw, &args); err != nil {
			return nil, fmt.Errorf("%s args: %w", nativeNodeNumberName, err)
		}
		p.reverse = args.Reverse
	}
	return p, nil
}

func (p *nativeNodeNumber) Name() string { return nativeNodeNumberName }

func lastDigit(name string) (byte, bool) {
	if name == "" {
		return 0, false
	}
	c := name[len(name)-1]
	return c - '0', c >= '0' && c <= '9'
}

func (p *nativeNodeNumber) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	d, ok := lastDigit(pod.Name)
	if !ok {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(nodeNumberStateKey, &nodeNumberState{digit: d})
	return nil
}

func (p *nativeNodeNumber) Score(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	match := true
	if data, err := state.Read(nodeNumberStateKey); err == nil {
		d, ok := lastDigit(nodeInfo.Node().Name)
		match = ok && d == data.(*nodeNumberState).digit
	}
	if match != p.reverse {
		return 10, nil
	}
	return 0, nil
}

func (p *nativeNodeNumber) ScoreExtensions() framework.ScoreExtensions { return nil }

func (p *nativeNodeNumber) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
	}, nil
}
