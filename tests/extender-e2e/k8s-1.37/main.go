// Command extender-e2e-1.37 runs the real kube-scheduler of
// k8s.io/kubernetes v1.37.2 against an embedded etcd and an in-process
// kube-apiserver on 127.0.0.1, with `kguest-extender serve` as its
// extender (the check itself is in ../harness).
//
//	extender-e2e-1.37 check --extender BIN --plugins DIR --deploy deploy/extender
//	extender-e2e-1.37 perf --extender BIN --plugins DIR --deploy DIR [--nodes 500] [--init 500] [--measured 1000] [--rounds 1]
//	extender-e2e-1.37 kube-scheduler ARGS...   (the scheduler, run as a child)
package main

import (
	"fmt"
	"os"

	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"kguest.dev/tests/extender-e2e/harness"
	"kguest.dev/tests/extender-e2e/harness/loopback"
	"kguest.dev/tests/extender-e2e/harness/nodenumber"
)

const name = "extender-e2e-1.37"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "kube-scheduler" {
		// The real kube-scheduler command. The wasm plugins reach it
		// through the extender; the native NodeNumber (nodenumber.go) is
		// only enabled by perf's variant that compares with it.
		cmd := app.NewSchedulerCommand(app.WithPlugin(nodenumber.Name, newNativeNodeNumber))
		cmd.SetArgs(os.Args[2:])
		err := cmd.Execute()
		// It returns once SIGTERM stopped it: perf reads its counters.
		if werr := loopback.WriteMetrics(); werr != nil && err == nil {
			err = werr
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(harness.Command(harness.Release{Name: name, Version: "1.37.2", Batching: true}, os.Args[1:]))
}
