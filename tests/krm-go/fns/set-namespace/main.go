// Command set-namespace is a KRM function written with kyaml's
// fn/framework, built with GOOS=wasip1 GOARCH=wasm: it sets
// metadata.namespace on every namespaced item, as kguest's
// examples/krm-set-namespace does (the namespace comes from the
// functionConfig's `namespace`, or a ConfigMap's `data.namespace`; kinds
// the built-in schema does not know are changed only when they already
// have a namespace).
package main

import (
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func namespace(config *yaml.RNode) string {
	if config == nil {
		return ""
	}
	for _, path := range [][]string{{"namespace"}, {"data", "namespace"}} {
		if node, err := config.Pipe(yaml.Lookup(path...)); err == nil && node != nil {
			if s := yaml.GetValue(node); s != "" {
				return s
			}
		}
	}
	return ""
}

func process(rl *framework.ResourceList) error {
	ns := namespace(rl.FunctionConfig)
	if ns == "" {
		rl.Results = append(rl.Results, &framework.Result{
			Message:  "functionConfig sets no namespace (`namespace`, or a ConfigMap's `data.namespace`)",
			Severity: framework.Error,
		})
		return rl.Results
	}
	for _, item := range rl.Items {
		meta, err := item.GetMeta()
		if err != nil {
			return err
		}
		namespaced, known := openapi.IsNamespaceScoped(meta.TypeMeta)
		if !known {
			namespaced = meta.Namespace != ""
		}
		if !namespaced || meta.Namespace == ns {
			continue
		}
		if err := item.SetNamespace(ns); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	if err := command.Build(framework.ResourceListProcessorFunc(process), command.StandaloneDisabled, false).Execute(); err != nil {
		os.Exit(1)
	}
}
