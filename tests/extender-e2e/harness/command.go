package harness

import (
	"flag"
	"fmt"
	"os"
)

// Command is the extender route's command line for one release's harness
// binary (name, as the usage and errors call it): `check` or `perf`
// (args[0]) with their flags. It returns the process's exit code. native
// says the binary's kube-scheduler has the native Go NodeNumber.
func Command(name, release string, native bool, args []string) int {
	usage := fmt.Sprintf(`usage:
  %[1]s check --extender BIN --plugins DIR --deploy DIR
  %[1]s perf --extender BIN --plugins DIR --deploy DIR [--nodes N] [--init N] [--measured N]
`, name)
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
		o := Options{Release: release}
		files(fs, &o)
		_ = fs.Parse(args[1:])
		if o.Extender == "" || o.Plugins == "" || o.Deploy == "" || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			return 2
		}
		err = Check(o)
	case "perf":
		fs := flag.NewFlagSet("perf", flag.ExitOnError)
		o := PerfOptions{Options: Options{Release: release}, NativeNodeNumber: native}
		files(fs, &o.Options)
		fs.IntVar(&o.Nodes, "nodes", 500, "nodes")
		fs.IntVar(&o.InitPods, "init", 500, "initial pods (scheduled before timing)")
		fs.IntVar(&o.MeasuredPods, "measured", 1000, "measured pods (at least 2)")
		_ = fs.Parse(args[1:])
		if o.Extender == "" || o.Plugins == "" || o.Deploy == "" || o.Nodes < 1 || o.InitPods < 0 || o.MeasuredPods < 2 || fs.NArg() != 0 {
			fmt.Fprint(os.Stderr, usage)
			return 2
		}
		err = Perf(o)
	case "-h", "--help":
		fmt.Print(usage)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "%s: unknown command %q\n%s", name, args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		return 1
	}
	return 0
}
