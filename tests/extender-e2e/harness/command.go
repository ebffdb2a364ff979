package harness

import (
	"flag"
	"fmt"
	"os"

	"kguest.dev/tests/extender-e2e/harness/loopback"
)

// Release is one release module's harness binary, as the shared command
// line serves it.
type Release struct {
	Name    string // the command (binary and subcommand) in usage and errors
	Version string // e.g. 1.33.4, for the printed lines
	// KSW, where the binary's kube-scheduler registers KSW's wasm plugin
	// (1.33.4: KSW builds against it only), gives perf's variants that run
	// it, from perf's --ksw folder, the example plugins and the scheduler's
	// kubeconfig; perf then requires --ksw.
	KSW func(ksw, plugins, kubeconfig string) ([]loopback.Variant, error)
	// Batching: the scheduler has KEP-5598's OpportunisticBatching gate
	// (1.35 on); perf then also times the default profile with it off.
	Batching bool
}

// Command is the extender route's command line: `check` or `perf`
// (args[0]) with their flags. It returns the process's exit code. The
// binary's own `kube-scheduler` subcommand must register the native
// NodeNumber (harness/nodenumber) that perf compares with.
func Command(rel Release, args []string) int {
	kswFlag := ""
	if rel.KSW != nil {
		kswFlag = " --ksw DIR"
	}
	usage := fmt.Sprintf(`usage:
  %[1]s check --extender BIN --plugins DIR --deploy DIR
  %[1]s perf --extender BIN --plugins DIR --deploy DIR%[2]s [--nodes N] [--init N] [--measured N] [--rounds N]
`, rel.Name, kswFlag)
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	files := func(fs *flag.FlagSet, o *Options) {
		fs.StringVar(&o.Extender, "extender", "", "the kguest-extender binary")
		fs.StringVar(&o.Plugins, "plugins", "", "the folder of the built example plugins")
		fs.StringVar(&o.Deploy, "deploy", "", "deploy/extender")
	}
	var err error
	switch args[0] {
	case "check":
		fs := flag.NewFlagSet("check", flag.ExitOnError)
		o := Options{Release: rel.Version}
		files(fs, &o)
		_ = fs.Parse(args[1:])
		if o.Extender == "" || o.Plugins == "" || o.Deploy == "" || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			return 2
		}
		err = Check(o)
	case "perf":
		fs := flag.NewFlagSet("perf", flag.ExitOnError)
		o := PerfOptions{Options: Options{Release: rel.Version}}
		files(fs, &o.Options)
		fs.IntVar(&o.Nodes, "nodes", 500, "nodes")
		fs.IntVar(&o.InitPods, "init", 500, "initial pods (scheduled before timing)")
		fs.IntVar(&o.MeasuredPods, "measured", 1000, "measured pods (at least 2)")
		fs.IntVar(&o.Rounds, "rounds", 1, "rounds of all the variants (interleaved; medians)")
		if rel.KSW != nil {
			fs.StringVar(&o.KSW, "ksw", "", "KSW's material at 9b2791f (proto-vendor/ksw)")
		}
		_ = fs.Parse(args[1:])
		if o.Extender == "" || o.Plugins == "" || o.Deploy == "" || (rel.KSW != nil && o.KSW == "") ||
			o.Nodes < 1 || o.InitPods < 0 || o.MeasuredPods < 2 || o.Rounds < 1 || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			return 2
		}
		err = Perf(rel, o)
	case "-h", "--help":
		fmt.Print(usage)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "%s: unknown command %q\n%s", rel.Name, args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", rel.Name, err)
		return 1
	}
	return 0
}
