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
	"flag"
	"fmt"
	"os"

	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"kguest.dev/tests/extender-e2e/harness"
)

const release = "1.37.2"

const usage = `usage:
  extender-e2e-1.37 check --extender BIN --plugins DIR --deploy DIR
  extender-e2e-1.37 perf --extender BIN --plugins DIR --deploy DIR [--nodes N] [--init N] [--measured N]
  extender-e2e-1.37 kube-scheduler ARGS...
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "kube-scheduler":
		// The real kube-scheduler command, no plugin added: the wasm
		// plugins reach it through the extender.
		cmd := app.NewSchedulerCommand()
		cmd.SetArgs(os.Args[2:])
		err = cmd.Execute()
	case "check":
		fs := flag.NewFlagSet("check", flag.ExitOnError)
		o := harness.Options{Release: release}
		fs.StringVar(&o.Extender, "extender", "", "the kguest-extender binary")
		fs.StringVar(&o.Plugins, "plugins", "", "the folder of the built example plugins")
		fs.StringVar(&o.Deploy, "deploy", "", "deploy/extender")
		_ = fs.Parse(os.Args[2:])
		if o.Extender == "" || o.Plugins == "" || o.Deploy == "" || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		err = harness.Check(o, startCluster)
	case "perf":
		fs := flag.NewFlagSet("perf", flag.ExitOnError)
		o := harness.PerfOptions{Options: harness.Options{Release: release}}
		fs.StringVar(&o.Extender, "extender", "", "the kguest-extender binary")
		fs.StringVar(&o.Plugins, "plugins", "", "the folder of the built example plugins")
		fs.StringVar(&o.Deploy, "deploy", "", "deploy/extender")
		fs.IntVar(&o.Nodes, "nodes", 500, "nodes")
		fs.IntVar(&o.InitPods, "init", 500, "initial pods (scheduled before timing)")
		fs.IntVar(&o.MeasuredPods, "measured", 1000, "measured pods (at least 2)")
		_ = fs.Parse(os.Args[2:])
		if o.Extender == "" || o.Plugins == "" || o.Deploy == "" || o.Nodes < 1 || o.InitPods < 0 || o.MeasuredPods < 2 || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		err = harness.Perf(o, startCluster)
	case "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "extender-e2e-1.37: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "extender-e2e-1.37: %v\n", err)
		os.Exit(1)
	}
}
