// Command extender-e2e-1.37 runs the real kube-scheduler of
// k8s.io/kubernetes v1.37.2 against an embedded etcd and an in-process
// kube-apiserver on 127.0.0.1, with `kguest-extender serve` as its
// extender (the check itself is in ../harness).
//
//	extender-e2e-1.37 check --extender BIN --plugins DIR --deploy deploy/extender
//	extender-e2e-1.37 perf --extender BIN --plugins DIR --deploy DIR [--nodes 500] [--init 500] [--measured 1000]
//	extender-e2e-1.37 kube-scheduler ARGS...   (the scheduler, run as a child)
package main

import (
	"fmt"
	"os"

	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"kguest.dev/tests/extender-e2e/harness"
)

const name = "extender-e2e-1.37"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "kube-scheduler" {
		// The real kube-scheduler command, no plugin added: the wasm
		// plugins reach it through the extender.
		cmd := app.NewSchedulerCommand()
		cmd.SetArgs(os.Args[2:])
		if err := cmd.Execute(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(harness.Command(name, "1.37.2", false, os.Args[1:]))
}
