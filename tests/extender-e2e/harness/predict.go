package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// prediction is what `kguest-extender predict` prints, as far as the
// harness reads it.
type prediction struct {
	Filter struct {
		Passed []string `json:"passed"`
	} `json:"filter"`
	Prioritize []struct {
		Host  string `json:"Host"`
		Score int64  `json:"Score"`
	} `json:"prioritize"`
	PluginErrors []string `json:"pluginErrors"`
}

// predictor runs `kguest-extender predict` over the Nodes as the API
// server holds them now.
type predictor struct {
	bin, profile, dir string
	weight            int64
	nodesFile         string
}

// WriteJSON writes v as indented JSON (the files `kguest run` and
// `kguest-extender predict` read).
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// snapshotNodes writes the API server's Nodes, read back, as the List the
// predictions run over.
func (p *predictor) snapshotNodes(ctx context.Context, client kubernetes.Interface, name string) error {
	stored, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	items := []any{}
	for i := range stored.Items {
		n := stored.Items[i]
		n.APIVersion, n.Kind = "v1", "Node"
		items = append(items, n)
	}
	p.nodesFile = filepath.Join(p.dir, "nodes-"+name+".json")
	return WriteJSON(p.nodesFile, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
}

// picks are the nodes kube-scheduler may bind pod to under extender
// semantics, from the extender's own prediction: the nodes that pass its
// filter (the scheduler's remaining Filter plugins pass every test node)
// and, among them, those with the highest priority x weight x 10 (the
// profile disables every Score plugin, so that sum is a node's whole
// score; a tie leaves the scheduler free among them). With one node
// left, kube-scheduler binds it without prioritizing.
func (p *predictor) picks(pod *v1.Pod) ([]string, error) {
	pod = pod.DeepCopy()
	pod.APIVersion, pod.Kind = "v1", "Pod"
	podFile := filepath.Join(p.dir, "pod-"+pod.Namespace+"-"+pod.Name+".json")
	if err := WriteJSON(podFile, pod); err != nil {
		return nil, err
	}
	args := []string{"predict", "--config", p.profile, "--pod", podFile, "--nodes", p.nodesFile}
	cmd := exec.Command(p.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("kguest-extender %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	var pr prediction
	if err := json.Unmarshal(out, &pr); err != nil {
		return nil, fmt.Errorf("kguest-extender predict printed %q: %w", out, err)
	}
	if len(pr.PluginErrors) > 0 {
		return nil, fmt.Errorf("kguest-extender predict for %s/%s: plugin errors %v", pod.Namespace, pod.Name, pr.PluginErrors)
	}
	if len(pr.Filter.Passed) == 0 {
		return nil, fmt.Errorf("kguest-extender predict: no node passes filter for %s/%s", pod.Namespace, pod.Name)
	}
	if len(pr.Filter.Passed) == 1 {
		return pr.Filter.Passed, nil
	}
	best := int64(-1)
	var picks []string
	for _, s := range pr.Prioritize {
		total := s.Score * p.weight * 10
		switch {
		case total > best:
			best, picks = total, []string{s.Host}
		case total == best:
			picks = append(picks, s.Host)
		}
	}
	if len(picks) == 0 {
		picks = pr.Filter.Passed
	}
	sort.Strings(picks)
	return picks, nil
}
