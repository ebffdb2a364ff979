// Command require-requests is a KRM validator written with kyaml's
// fn/framework, built with GOOS=wasip1 GOARCH=wasm, doing what kguest's
// examples/krm-require-requests does: for each container and init
// container of a Pod or of a workload's pod template, one error result
// when it has no cpu or no memory request, or when a limit is below its
// request. Items are never changed; it exits 1 when it reported anything.
package main

import (
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// templates holds the path of the pod template of each workload kind
// (by group and kind).
var templates = map[string][]string{
	"/Pod":                   nil,
	"/ReplicationController": {"spec", "template"},
	"apps/Deployment":        {"spec", "template"},
	"apps/StatefulSet":       {"spec", "template"},
	"apps/DaemonSet":         {"spec", "template"},
	"apps/ReplicaSet":        {"spec", "template"},
	"batch/Job":              {"spec", "template"},
	"batch/CronJob":          {"spec", "jobTemplate", "spec", "template"},
	"extensions/Deployment":  {"spec", "template"},
	"extensions/DaemonSet":   {"spec", "template"},
	"extensions/ReplicaSet":  {"spec", "template"},
}

func group(apiVersion string) string {
	for i := range len(apiVersion) {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return ""
}

func str(node *yaml.RNode, path ...string) (string, bool) {
	n, err := node.Pipe(yaml.Lookup(path...))
	if err != nil || n == nil {
		return "", false
	}
	return yaml.GetValue(n), true
}

func process(rl *framework.ResourceList) error {
	for _, item := range rl.Items {
		meta, err := item.GetMeta()
		if err != nil {
			return err
		}
		template, ok := templates[group(meta.APIVersion)+"/"+meta.Kind]
		if !ok {
			continue
		}
		spec, err := item.Pipe(yaml.Lookup(append(append([]string{}, template...), "spec")...))
		if err != nil || spec == nil {
			continue
		}
		prefix := ""
		for _, seg := range template {
			prefix += seg + "."
		}
		ref := &yaml.ResourceIdentifier{TypeMeta: meta.TypeMeta, NameMeta: meta.ObjectMeta.NameMeta}
		var file *framework.File
		if path := meta.Annotations[kioutil.PathAnnotation]; path != "" {
			file = &framework.File{Path: path}
		}
		report := func(message, field string) {
			rl.Results = append(rl.Results, &framework.Result{
				Message:     message,
				Severity:    framework.Error,
				ResourceRef: ref,
				Field:       &framework.Field{Path: field},
				File:        file,
			})
		}
		for _, key := range []string{"initContainers", "containers"} {
			containers, err := spec.Pipe(yaml.Lookup(key))
			if err != nil || containers == nil {
				continue
			}
			elements, err := containers.Elements()
			if err != nil {
				continue
			}
			for j, c := range elements {
				name, ok := str(c, "name")
				if !ok {
					name = "?"
				}
				at := fmt.Sprintf("%sspec.%s[%d].resources", prefix, key, j)
				for _, res := range []string{"cpu", "memory"} {
					request, ok := str(c, "resources", "requests", res)
					if !ok {
						report(fmt.Sprintf("container %s has no %s request", name, res), at+".requests."+res)
						continue
					}
					req, err := resource.ParseQuantity(request)
					if err != nil {
						report(fmt.Sprintf("container %s: %s request `%s` is not a quantity", name, res, request), at+".requests."+res)
						continue
					}
					limit, ok := str(c, "resources", "limits", res)
					if !ok {
						continue
					}
					lim, err := resource.ParseQuantity(limit)
					switch {
					case err != nil:
						report(fmt.Sprintf("container %s: %s limit `%s` is not a quantity", name, res, limit), at+".limits."+res)
					case lim.Cmp(req) < 0:
						report(fmt.Sprintf("container %s: %s limit %s is below its request %s", name, res, limit, request), at+".limits."+res)
					}
				}
			}
		}
	}
	if len(rl.Results) > 0 {
		return rl.Results
	}
	return nil
}

func main() {
	if err := command.Build(framework.ResourceListProcessorFunc(process), command.StandaloneDisabled, false).Execute(); err != nil {
		os.Exit(1)
	}
}
