package loopback

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// TestNode is a schedulable node shaped like scheduler_perf's default node
// template (4 CPUs, 32 Gi memory, 110 pods, Ready), with optional taints.
func TestNode(name string, taints ...v1.Taint) *v1.Node {
	capacity := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("32Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	return &v1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name:   name,
			Labels: map[string]string{"kubernetes.io/hostname": name},
		},
		Spec: v1.NodeSpec{Taints: taints},
		Status: v1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			Phase:       v1.NodeRunning,
		},
	}
}

// TestPod is a pause pod like scheduler_perf's default pod template
// (requests = limits = 100m CPU, 500 Mi memory; container port 80).
func TestPod(namespace, name string) *v1.Pod {
	res := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("100m"),
		v1.ResourceMemory: resource.MustParse("500Mi"),
	}
	return &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: v1.PodSpec{
			Containers: []v1.Container{{
				Name:      "pause",
				Image:     "registry.k8s.io/pause:3.10",
				Ports:     []v1.ContainerPort{{ContainerPort: 80}},
				Resources: v1.ResourceRequirements{Requests: res, Limits: res},
			}},
		},
	}
}

func CreateNamespace(ctx context.Context, client kubernetes.Interface, name string) error {
	_, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return nil
}

func CreateNodes(ctx context.Context, client kubernetes.Interface, nodes []*v1.Node) error {
	return parallel(len(nodes), func(i int) error {
		_, err := client.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating node %s: %w", nodes[i].Name, err)
		}
		return nil
	})
}

func CreatePods(ctx context.Context, client kubernetes.Interface, pods []*v1.Pod) ([]*v1.Pod, error) {
	created := make([]*v1.Pod, len(pods))
	err := parallel(len(pods), func(i int) error {
		p, err := client.CoreV1().Pods(pods[i].Namespace).Create(ctx, pods[i], metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating pod %s/%s: %w", pods[i].Namespace, pods[i].Name, err)
		}
		created[i] = p
		return nil
	})
	return created, err
}

// parallel runs f(0..n-1) on 16 goroutines and returns the first error.
func parallel(n int, f func(i int) error) error {
	const workers = 16
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					errs <- err
					for range next {
					}
					return
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	return <-errs
}

// BindWatcher records, from an informer, which pods of a namespace have a
// node, and when it first saw each bound.
type BindWatcher struct {
	mu      sync.Mutex
	bound   map[string]string    // pod name -> node name
	boundAt map[string]time.Time // pod name -> when the informer first saw it bound
	changed chan struct{}
	stop    chan struct{}
}

func WatchBindings(client kubernetes.Interface, namespace string) (*BindWatcher, error) {
	w := &BindWatcher{bound: map[string]string{}, boundAt: map[string]time.Time{}, changed: make(chan struct{}, 1), stop: make(chan struct{})}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(namespace))
	informer := factory.Core().V1().Pods().Informer()
	record := func(obj any) {
		pod, ok := obj.(*v1.Pod)
		if !ok || pod.Spec.NodeName == "" {
			return
		}
		w.mu.Lock()
		if _, seen := w.bound[pod.Name]; !seen {
			w.boundAt[pod.Name] = time.Now()
		}
		w.bound[pod.Name] = pod.Spec.NodeName
		w.mu.Unlock()
		select {
		case w.changed <- struct{}{}:
		default:
		}
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
	})
	if err != nil {
		return nil, err
	}
	factory.Start(w.stop)
	for typ, ok := range factory.WaitForCacheSync(w.stop) {
		if !ok {
			close(w.stop)
			return nil, fmt.Errorf("pod informer %v did not sync", typ)
		}
	}
	return w, nil
}

// WaitFor waits until the pods named all have a node, checking alive (the
// scheduler is still running) meanwhile.
func (w *BindWatcher) WaitFor(names []string, timeout time.Duration, alive func() error) error {
	deadline := time.After(timeout)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		missing := len(names) - w.Count(names)
		if missing == 0 {
			return nil
		}
		select {
		case <-w.changed:
		case <-tick.C:
			if err := alive(); err != nil {
				return err
			}
		case <-deadline:
			return fmt.Errorf("%d of %d pods not bound after %s", missing, len(names), timeout)
		}
	}
}

// Count is how many of names are bound.
func (w *BindWatcher) Count(names []string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, name := range names {
		if _, ok := w.bound[name]; ok {
			n++
		}
	}
	return n
}

func (w *BindWatcher) NodeOf(pod string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.bound[pod]
}

// Span is the time from the first to the last binding seen among names.
func (w *BindWatcher) Span(names []string) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first, last time.Time
	for _, n := range names {
		t := w.boundAt[n]
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	return last.Sub(first)
}

func (w *BindWatcher) Close() { close(w.stop) }
