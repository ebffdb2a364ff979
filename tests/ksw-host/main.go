// Command ksw-host runs kguest guests (and any other KSW guest) in
// kube-scheduler-wasm-extension's own Go host: each plugin is made by
// wasm.PluginFactory inside Kubernetes 1.33.4's scheduling framework
// (frameworkruntime.NewFramework with a snapshot of the case's Nodes and a
// profile with QueueSort and Bind plugins, as the scheduler builds one), and
// every hook the guest exports is called on the case's Pod and Nodes.
//
//	ksw-host run CASES.json   one JSON line per case: what each hook returned,
//	                          the log lines and recorded events, in order
//
// kguest-host's test `ksw::go_host` writes the cases, runs the same ones
// through kguest-host and compares the lines.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] != "run" {
		fmt.Fprintln(os.Stderr, "usage: ksw-host run CASES.json")
		os.Exit(2)
	}
	metrics.Register() // the framework counts plugin calls
	data, err := os.ReadFile(os.Args[2])
	if err != nil {
		fail(err)
	}
	var cases []Case
	if err := json.Unmarshal(data, &cases); err != nil {
		fail(fmt.Errorf("%s: %w", os.Args[2], err))
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for _, c := range cases {
		records, err := runCase(c)
		if err != nil {
			fail(fmt.Errorf("case %s: %w", c.Name, err))
		}
		if err := out.Encode(map[string]any{"case": c.Name, "records": records}); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ksw-host:", err)
	os.Exit(1)
}
