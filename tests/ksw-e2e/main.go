// Command ksw-e2e runs the real kube-scheduler (k8s.io/kubernetes v1.33.4,
// the version kube-scheduler-wasm-extension pins) against an embedded etcd
// and an in-process kube-apiserver on 127.0.0.1, started and stopped by the
// harness: with KSW's wasm plugin (check, perf), and as the judge of
// kguest-extender on 1.33.4 (extender check|perf, ../extender-e2e/harness).
//
//	ksw-e2e check --kguest BIN --plugins DIR --deploy docs/deploy.md --ksw proto-vendor/ksw
//	ksw-e2e perf --plugins DIR --ksw proto-vendor/ksw [--nodes 500] [--init 500] [--measured 1000] [--rounds 1]
//	ksw-e2e extender check|perf ...   (tests/extender-e2e's check on 1.33.4)
//	ksw-e2e kube-scheduler ARGS...   (the scheduler itself, run as a child)
package main

import (
	"flag"
	"fmt"
	"os"

	"kguest.dev/tests/extender-e2e/harness"
)

const usage = `usage:
  ksw-e2e check --kguest BIN --plugins DIR --deploy FILE --ksw DIR
  ksw-e2e perf --plugins DIR --ksw DIR [--nodes N] [--init N] [--measured N] [--rounds N]
               [--only NAME] [--cpuprofile DIR]
  ksw-e2e extender check|perf ...
  ksw-e2e kube-scheduler ARGS...
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "kube-scheduler":
		err = runKubeScheduler(os.Args[2:])
	case "extender":
		// The extender's end-to-end check on this release; its perf also
		// times KSW's wasm plugin in the same run.
		os.Exit(harness.Command(harness.Release{Name: "ksw-e2e extender", Version: "1.33.4", KSW: kswPerfVariants}, os.Args[2:]))
	case "check":
		fs := flag.NewFlagSet("check", flag.ExitOnError)
		var o checkOptions
		fs.StringVar(&o.kguest, "kguest", "", "the kguest CLI binary")
		fs.StringVar(&o.plugins, "plugins", "", "the folder of the example plugins (cargo xtask examples)")
		fs.StringVar(&o.deploy, "deploy", "", "docs/deploy.md")
		fs.StringVar(&o.ksw, "ksw", "", "KSW's material at 9b2791f (proto-vendor/ksw)")
		_ = fs.Parse(os.Args[2:])
		if o.kguest == "" || o.plugins == "" || o.deploy == "" || o.ksw == "" || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		err = runCheck(o)
	case "perf":
		fs := flag.NewFlagSet("perf", flag.ExitOnError)
		o := perfOptions{}
		fs.IntVar(&o.nodes, "nodes", 500, "nodes")
		fs.IntVar(&o.initPods, "init", 500, "initial pods (scheduled before timing)")
		fs.IntVar(&o.measuredPods, "measured", 1000, "measured pods (at least 2)")
		fs.IntVar(&o.rounds, "rounds", 1, "rounds of all the variants")
		fs.StringVar(&o.plugins, "plugins", "", "the folder of the example plugins (cargo xtask examples)")
		fs.StringVar(&o.ksw, "ksw", "", "KSW's material at 9b2791f (proto-vendor/ksw)")
		fs.StringVar(&o.only, "only", "", "run only the variants whose name contains this")
		fs.StringVar(&o.cpuProfiles, "cpuprofile", "", "write each measured scheduler's CPU profile into this folder")
		_ = fs.Parse(os.Args[2:])
		if o.plugins == "" || o.ksw == "" || o.nodes < 1 || o.initPods < 0 || o.measuredPods < 2 || o.rounds < 1 || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			os.Exit(2)
		}
		err = runPerf(o)
	case "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "ksw-e2e: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ksw-e2e: %v\n", err)
		os.Exit(1)
	}
}
