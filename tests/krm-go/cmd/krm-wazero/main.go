// Command krm-wazero runs a KRM function built for WASI preview1 the way
// KEP-4944's prototype does: wazero with wasi_snapshot_preview1, the
// module's _start, the ResourceList on standard input, argv ["krm"], no
// environment, no preopened directories, standard output captured.
//
// It is the judge kguest's own runner (`kguest krm`) is compared with. It
// adds only what a judge needs to fail the same way kguest krm does: a
// deadline, a memory limit and an output limit, and a check that the
// output is a ResourceList before any of it is written.
//
//	krm-wazero [-timeout 10s] [-memory 512] [-stdout-limit 256] [-stderr] [-repeat N] [-imports] [-raw] FUNCTION.wasm < list.yaml
//
// On success the function's standard output is written unchanged and the
// command exits with the function's exit code. Otherwise it writes one
// line on standard error naming the function and the cause, nothing on
// standard output, and exits 1 (2 for usage errors). With -raw the output
// is not checked: whatever the function wrote is written and the command
// exits with the function's code (125 when the run itself failed).
//
// -repeat N compiles once, runs N times and prints the timings and the
// peak linear memory on standard error (the output of the last run is
// written).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func main() {
	timeout := flag.Duration("timeout", 10*time.Second, "deadline for instantiation and _start")
	memoryMiB := flag.Uint64("memory", 512, "largest linear memory, in MiB")
	stdoutMiB := flag.Uint64("stdout-limit", 256, "most bytes the function may write to standard output, in MiB")
	stderr := flag.Bool("stderr", false, "pass the function's standard error through (the prototype does not wire it)")
	repeat := flag.Int("repeat", 0, "compile once, run N times, print timings on standard error")
	imports := flag.Bool("imports", false, "list the module's imports and exit")
	raw := flag.Bool("raw", false, "write whatever the function wrote and exit with its code, unchecked (runner failures exit 125)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: krm-wazero [-timeout D] [-memory MIB] [-stdout-limit MIB] [-stderr] [-repeat N] [-imports] [-raw] FUNCTION.wasm < list")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *timeout <= 0 || *memoryMiB == 0 {
		flag.Usage()
		os.Exit(2)
	}
	path := flag.Arg(0)
	name := filepath.Base(path)
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "krm-wazero: %s: %s\n", name, oneLine(fmt.Sprintf(format, args...)))
		if *raw {
			os.Exit(125)
		}
		os.Exit(1)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("reading standard input: %v", err)
	}
	var errOut io.Writer
	if *stderr {
		errOut = os.Stderr
	}
	r := runner{
		timeout:     *timeout,
		memoryLimit: *memoryMiB << 20,
		stdoutLimit: int(*stdoutMiB << 20),
		stderr:      errOut,
	}
	ctx := context.Background()
	compileStart := time.Now()
	rt, compiled, err := r.compile(ctx, wasm)
	if err != nil {
		fail("%v", err)
	}
	compile := time.Since(compileStart)
	if *imports {
		for _, imp := range compiled.ImportedFunctions() {
			module, fn, _ := imp.Import()
			fmt.Printf("%s.%s\n", module, fn)
		}
		return
	}
	runs := max(*repeat, 1)
	var out result
	runStart := time.Now()
	for range runs {
		out = r.run(ctx, rt, compiled, input)
		if out.err != nil {
			fail("%v", out.err)
		}
	}
	perRun := time.Since(runStart) / time.Duration(runs)
	if *repeat > 0 {
		fmt.Fprintf(os.Stderr, "krm-wazero: compile %.1f ms, run %.2f ms (mean of %d), peak memory %d bytes\n",
			float64(compile.Microseconds())/1e3, float64(perRun.Microseconds())/1e3, runs, out.peak)
	}
	if *raw {
		if _, err := os.Stdout.Write(out.stdout); err != nil {
			fail("writing standard output: %v", err)
		}
		os.Exit(int(out.exit))
	}
	if len(bytes.TrimSpace(out.stdout)) == 0 && out.exit != 0 {
		fail("the function exited with code %d and wrote no output", out.exit)
	}
	if err := checkList(out.stdout); err != nil {
		if out.exit != 0 {
			fail("the function exited with code %d; its output is not a ResourceList: %v", out.exit, err)
		}
		fail("%v", err)
	}
	if _, err := os.Stdout.Write(out.stdout); err != nil {
		fail("writing standard output: %v", err)
	}
	os.Exit(int(out.exit))
}

type runner struct {
	timeout     time.Duration
	memoryLimit uint64
	stdoutLimit int
	stderr      io.Writer
}

type result struct {
	stdout []byte
	exit   uint32
	peak   uint64
	err    error
}

// compile makes the runtime (wasi_snapshot_preview1 instantiated in it) and
// compiles the module.
func (r runner) compile(ctx context.Context, wasm []byte) (wazero.Runtime, wazero.CompiledModule, error) {
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil, nil, fmt.Errorf("instantiating wasi_snapshot_preview1: %w", err)
	}
	provided := rt.Module(wasi_snapshot_preview1.ModuleName).ExportedFunctionDefinitions()
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, nil, fmt.Errorf("not a valid wasm module: %w", err)
	}
	for _, imp := range compiled.ImportedFunctions() {
		module, fn, _ := imp.Import()
		if module != wasi_snapshot_preview1.ModuleName {
			return nil, nil, fmt.Errorf("the module imports `%s`.`%s`; a KRM function may import only WASI preview1 functions", module, fn)
		}
		if _, ok := provided[fn]; !ok {
			return nil, nil, fmt.Errorf("the module imports `%s`.`%s`, which wazero's wasi_snapshot_preview1 does not provide", module, fn)
		}
	}
	if _, ok := compiled.ExportedFunctions()["_start"]; !ok {
		return nil, nil, errors.New("the module exports no `_start` function (not a WASI command)")
	}
	return rt, compiled, nil
}

// run instantiates the compiled module once, which runs _start.
func (r runner) run(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule, input []byte) result {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, stop := context.WithTimeout(ctx, r.timeout)
	defer stop()
	mem := &limitedAllocator{limit: r.memoryLimit, cancel: cancel}
	ctx = experimental.WithMemoryAllocator(ctx, mem)
	stdout := &limitedWriter{limit: r.stdoutLimit, cancel: cancel}
	config := wazero.NewModuleConfig().
		WithName("").
		WithArgs("krm").
		WithStdin(bytes.NewReader(input)).
		WithStdout(stdout)
	if r.stderr != nil {
		config = config.WithStderr(r.stderr)
	}
	mod, err := rt.InstantiateModule(ctx, compiled, config)
	if mod != nil {
		_ = mod.Close(context.Background())
	}
	out := result{stdout: stdout.buf.Bytes(), peak: mem.peak}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		out.err = cause
		return out
	}
	if mem.refused != 0 {
		out.err = memoryError{mem.refused, r.memoryLimit}
		return out
	}
	var exit *sys.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
		out.err = fmt.Errorf("the function ran longer than %g s and was stopped", r.timeout.Seconds())
	case errors.As(err, &exit) && exit.ExitCode() < sys.ExitCodeDeadlineExceeded:
		out.exit = exit.ExitCode()
	default:
		out.err = fmt.Errorf("the function trapped: %v", err)
	}
	return out
}

type memoryError struct{ requested, limit uint64 }

func (e memoryError) Error() string {
	return fmt.Sprintf("the function asked for %d MiB of memory, over the limit of %d MiB", e.requested>>20, e.limit>>20)
}

// limitedAllocator backs linear memory with a plain slice and refuses (and
// remembers) any growth past the limit, which stops the run as kguest krm's
// limiter does.
type limitedAllocator struct {
	limit   uint64
	peak    uint64
	refused uint64
	cancel  context.CancelCauseFunc
}

func (a *limitedAllocator) Allocate(capacity, maximum uint64) experimental.LinearMemory {
	return &linearMemory{alloc: a, buf: make([]byte, 0, min(capacity, a.limit))}
}

type linearMemory struct {
	alloc *limitedAllocator
	buf   []byte
}

func (m *linearMemory) Reallocate(size uint64) []byte {
	if size > m.alloc.limit {
		if m.alloc.refused == 0 {
			m.alloc.refused = size
			m.alloc.cancel(memoryError{size, m.alloc.limit})
		}
		return nil
	}
	if size > uint64(cap(m.buf)) {
		grown := make([]byte, size, max(size, min(2*uint64(cap(m.buf)), m.alloc.limit)))
		copy(grown, m.buf)
		m.buf = grown
	} else {
		m.buf = m.buf[:size]
	}
	m.alloc.peak = max(m.alloc.peak, size)
	return m.buf
}

func (m *linearMemory) Free() { m.buf = nil }

// limitedWriter keeps standard output up to a limit; past it the run is
// stopped.
type limitedWriter struct {
	buf    bytes.Buffer
	limit  int
	cancel context.CancelCauseFunc
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.limit {
		err := fmt.Errorf("the function wrote more than %d MiB to standard output", w.limit>>20)
		w.cancel(err)
		return 0, err
	}
	return w.buf.Write(p)
}

// checkList reports why out is not a ResourceList.
func checkList(out []byte) error {
	if len(bytes.TrimSpace(out)) == 0 {
		return errors.New("the function wrote no output (a ResourceList was expected)")
	}
	node, err := yaml.Parse(string(out))
	if err != nil {
		return fmt.Errorf("the function's output is not a ResourceList: invalid YAML: %v", err)
	}
	meta, err := node.GetMeta()
	if err != nil {
		return fmt.Errorf("the function's output is not a ResourceList: %v", err)
	}
	if meta.Kind != "ResourceList" || !strings.HasPrefix(meta.APIVersion, "config.kubernetes.io/") {
		return fmt.Errorf("the function's output is not a ResourceList: apiVersion `%s`, kind `%s`", meta.APIVersion, meta.Kind)
	}
	return nil
}

func oneLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}
