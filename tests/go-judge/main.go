// Command go-judge answers, with Kubernetes' own Go marshallers, what the API
// server and kubectl write for an object, so that kguest's encoders and
// views can be compared with them byte for byte.
//
//	go-judge kinds --fixtures DIR
//	go-judge gen   --fixtures DIR --seed-start A --seeds N [--kinds REGEX]
//	go-judge judge < requests
//
// The kinds judged are those of client-go's scheme that have an upstream
// HEAD fixture (`<group>.<version>.<Kind>.json`, `core` for the core group)
// in DIR; `--api-dir DIR` names the k8s.io/api module instead (its
// testdata/HEAD). Objects are random as upstream's round-trip test makes
// them (apimachinery's apitesting fuzzer with the generic meta fuzz
// functions), in four variants:
//
//   - default: the fuzzer as upstream configures it;
//   - many:    several elements in every list and map, few absent fields;
//   - nil:     every pointer, list and map absent;
//   - zero:    the zero object with only apiVersion and kind (one per kind).
//
// Every object is first canonicalized as the API server would hold it
// (protobuf out and back in). Objects that Go itself cannot write and read
// back identically through both protobuf and JSON are dropped and counted
// per kind on stderr: that is a limit of the Go types, not something to
// judge others by.
//
// `gen` writes one JSON line per object (see record). `judge` reads JSON
// lines {"id", "format": "pb"|"json"|"yaml", "data": base64, "strict": bool}
// and answers each with the same fields for the decoded object, or "error"
// with Go's error text.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	genericfuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"
)

// record is one output line: an object in every form Go writes it.
type record struct {
	ID         string `json:"id,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Seed       *int64 `json:"seed,omitempty"`
	Variant    string `json:"variant,omitempty"`
	// PB is what the API server stores and sends: `k8s\0` + runtime.Unknown.
	PB []byte `json:"pb,omitempty"`
	// Raw is the object's own message, without the envelope.
	Raw []byte `json:"raw,omitempty"`
	// JSON is the API server's JSON (compact, trailing newline).
	JSON *string `json:"json,omitempty"`
	// Kubectl and YAML are what `kubectl get -o json|yaml` prints; absent
	// for objects kubectl cannot print (no kind, as in a WatchEvent).
	Kubectl *string `json:"kubectl,omitempty"`
	YAML    *string `json:"yaml,omitempty"`
	// YAMLRaw is the message Go's decoder makes of YAML: what the API server
	// stores for that text (it turns YAML into JSON first, so embedded JSON
	// comes out re-marshalled, not as the object held it).
	// (A pointer, so that an empty message is still written.)
	YAMLRaw *[]byte `json:"yamlRaw,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Stage says where Error came from: "decode" (Go's decoder refused
	// the input) or "forms" (Go decoded it but cannot write or read back
	// one of the forms above, so Go has no answer to compare with).
	Stage string `json:"stage,omitempty"`
}

var (
	pbSerializer   = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	jsonSerializer = jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory,
		scheme.Scheme, scheme.Scheme, jsonserializer.SerializerOptions{})
	strictCodecs = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict)
)

func main() {
	if len(os.Args) < 2 {
		fatalf("usage: go-judge kinds|gen|judge [flags]")
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	fixtures := flags.String("fixtures", "", "directory of upstream HEAD fixtures (<group>.<version>.<Kind>.json)")
	apiDir := flags.String("api-dir", "", "the k8s.io/api module directory (fixtures in testdata/HEAD)")
	seedStart := flags.Int64("seed-start", 0, "first seed")
	seeds := flags.Int64("seeds", 1, "how many seeds per kind and variant")
	kindsRe := flags.String("kinds", "", "only kinds whose fixture name matches this regular expression")
	if err := flags.Parse(os.Args[2:]); err != nil {
		fatalf("%v", err)
	}
	if *fixtures == "" && *apiDir != "" {
		*fixtures = filepath.Join(*apiDir, "testdata", "HEAD")
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	switch os.Args[1] {
	case "kinds":
		for _, gvk := range kinds(*fixtures, *kindsRe) {
			fmt.Fprintln(out, fixtureName(gvk))
		}
	case "gen":
		gen(out, kinds(*fixtures, *kindsRe), *seedStart, *seeds)
	case "judge":
		judge(os.Stdin, out)
	default:
		fatalf("unknown command %q (kinds, gen or judge)", os.Args[1])
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-judge: "+format+"\n", args...)
	os.Exit(2)
}

// fixtureName is how upstream names a kind's fixture: `core.v1.Pod`,
// `apps.v1.Deployment`, `rbac.authorization.k8s.io.v1.Role`.
func fixtureName(gvk schema.GroupVersionKind) string {
	group := gvk.Group
	if group == "" {
		group = "core"
	}
	return group + "." + gvk.Version + "." + gvk.Kind
}

// kinds lists the external kinds of client-go's scheme that have a fixture
// in dir, sorted by fixture name.
func kinds(dir, pattern string) []schema.GroupVersionKind {
	if dir == "" {
		fatalf("--fixtures DIR or --api-dir DIR is required")
	}
	if _, err := os.Stat(dir); err != nil {
		fatalf("fixtures: %v", err)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		fatalf("--kinds: %v", err)
	}
	var found []schema.GroupVersionKind
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || !re.MatchString(fixtureName(gvk)) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, fixtureName(gvk)+".json")); err == nil {
			found = append(found, gvk)
		}
	}
	sort.Slice(found, func(i, j int) bool { return fixtureName(found[i]) < fixtureName(found[j]) })
	if len(found) == 0 {
		fatalf("no kind of client-go's scheme has a fixture in %s", dir)
	}
	return found
}

// filler makes the random filler of one variant, seeded.
func filler(variant string, seed int64) *randfill.Filler {
	f := fuzzer.FuzzerFor(genericfuzzer.Funcs, rand.NewSource(seed), scheme.Codecs)
	switch variant {
	case "many":
		f.NumElements(2, 3).NilChance(.2)
	case "nil":
		f.NilChance(1)
	}
	return f
}

// gen writes every kind x seed x variant object that Go round-trips.
func gen(out io.Writer, gvks []schema.GroupVersionKind, seedStart, seeds int64) {
	enc := json.NewEncoder(out)
	dropped := map[string]map[string]int{}
	for _, gvk := range gvks {
		for s := seedStart; s < seedStart+seeds; s++ {
			for _, variant := range []string{"default", "many", "nil", "zero"} {
				if variant == "zero" && s != seedStart {
					continue // the zero object does not depend on the seed
				}
				obj, err := scheme.Scheme.New(gvk)
				if err != nil {
					fatalf("%s: %v", fixtureName(gvk), err)
				}
				if variant != "zero" {
					filler(variant, s).Fill(obj)
				}
				obj.GetObjectKind().SetGroupVersionKind(gvk)
				rec, why := canonical(obj, gvk)
				if why != "" {
					name := fixtureName(gvk)
					if dropped[name] == nil {
						dropped[name] = map[string]int{}
					}
					dropped[name][why]++
					continue
				}
				seed := s
				rec.Seed, rec.Variant = &seed, variant
				if err := enc.Encode(rec); err != nil {
					fatalf("writing: %v", err)
				}
			}
		}
	}
	names := make([]string, 0, len(dropped))
	for name := range dropped {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(os.Stderr, "go-judge: dropped %s: %v\n", name, dropped[name])
	}
}

// canonical returns the object as the API server would hold it (protobuf
// out and back in) in every form, or why Go cannot round-trip it.
func canonical(obj runtime.Object, gvk schema.GroupVersionKind) (record, string) {
	first, err := encode(pbSerializer, obj)
	if err != nil {
		return record{}, "protobuf encode: " + err.Error()
	}
	held, err := decode(pbSerializer, first, gvk)
	if err != nil {
		return record{}, "protobuf decode"
	}
	rec, err := forms(held, gvk)
	if err != nil {
		return record{}, err.Error()
	}
	// Protobuf: read back, the bytes are the same.
	again, err := decode(pbSerializer, rec.PB, gvk)
	if err != nil {
		return record{}, "protobuf decode"
	}
	if pb, err := encode(pbSerializer, again); err != nil || !bytes.Equal(pb, rec.PB) {
		return record{}, "protobuf unstable"
	}
	// JSON: read back, both encodings are the same.
	fromJSON, err := decode(jsonSerializer, []byte(*rec.JSON), gvk)
	if err != nil {
		return record{}, "json decode"
	}
	if pb, err := encode(pbSerializer, fromJSON); err != nil || !bytes.Equal(pb, rec.PB) {
		return record{}, "json loses data"
	}
	if j, err := encode(jsonSerializer, fromJSON); err != nil || string(j) != *rec.JSON {
		return record{}, "json unstable"
	}
	return rec, ""
}

func encode(enc runtime.Encoder, obj runtime.Object) ([]byte, error) {
	var buf bytes.Buffer
	err := enc.Encode(obj, &buf)
	return buf.Bytes(), err
}

func decode(dec runtime.Decoder, data []byte, gvk schema.GroupVersionKind) (runtime.Object, error) {
	obj, _, err := dec.Decode(data, &gvk, nil)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, nil
}

// forms writes obj (its GVK set, unless it has no TypeMeta, as a
// WatchEvent) as the API server and kubectl write it; gvk is its type.
func forms(obj runtime.Object, gvk schema.GroupVersionKind) (record, error) {
	rec := record{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}
	var err error
	if rec.PB, err = encode(pbSerializer, obj); err != nil {
		return rec, fmt.Errorf("protobuf encode: %v", err)
	}
	marshaler, ok := obj.(interface{ Marshal() ([]byte, error) })
	if !ok {
		return rec, fmt.Errorf("%T has no protobuf Marshal", obj)
	}
	if rec.Raw, err = marshaler.Marshal(); err != nil {
		return rec, fmt.Errorf("protobuf marshal: %v", err)
	}
	j, err := encode(jsonSerializer, obj)
	if err != nil {
		return rec, fmt.Errorf("json encode: %v", err)
	}
	text := string(j)
	rec.JSON = &text
	// kubectl reads the server's JSON as Unstructured and prints that.
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err == nil && u.GetKind() != "" {
		var k, y bytes.Buffer
		if err := (&printers.JSONPrinter{}).PrintObj(u, &k); err != nil {
			return rec, fmt.Errorf("kubectl -o json: %v", err)
		}
		if err := (&printers.YAMLPrinter{}).PrintObj(u, &y); err != nil {
			return rec, fmt.Errorf("kubectl -o yaml: %v", err)
		}
		ks, ys := k.String(), y.String()
		rec.Kubectl, rec.YAML = &ks, &ys
		back, err := decode(scheme.Codecs.UniversalDeserializer(), y.Bytes(), gvk)
		if err != nil {
			return rec, fmt.Errorf("decoding kubectl's YAML: %v", err)
		}
		m, ok := back.(interface{ Marshal() ([]byte, error) })
		if !ok {
			return rec, fmt.Errorf("%T (from kubectl's YAML) has no protobuf Marshal", back)
		}
		raw, err := m.Marshal()
		if err != nil {
			return rec, fmt.Errorf("protobuf marshal of the YAML's object: %v", err)
		}
		rec.YAMLRaw = &raw
	}
	return rec, nil
}

// request is one input line of `judge`.
type request struct {
	ID     string `json:"id"`
	Format string `json:"format"`
	Data   []byte `json:"data"`
	Strict bool   `json:"strict"`
}

// judge decodes each request as the API server's universal deserializer
// does and answers with the object's forms or Go's error. Each answer is
// flushed as soon as it is written, so that a client may ask one question
// at a time (the fuzz oracle does).
func judge(in io.Reader, out *bufio.Writer) {
	enc := json.NewEncoder(out)
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 1<<20), 1<<30)
	for lines.Scan() {
		if len(bytes.TrimSpace(lines.Bytes())) == 0 {
			continue
		}
		var req request
		var rec record
		if err := json.Unmarshal(lines.Bytes(), &req); err != nil {
			rec.Error = "bad request: " + err.Error()
		} else {
			rec = answer(req)
			rec.ID = req.ID
		}
		if err := enc.Encode(rec); err != nil {
			fatalf("writing: %v", err)
		}
		if err := out.Flush(); err != nil {
			fatalf("writing: %v", err)
		}
	}
	if err := lines.Err(); err != nil {
		fatalf("reading: %v", err)
	}
}

func answer(req request) record {
	switch req.Format {
	case "pb", "json", "yaml":
	default:
		return record{Error: fmt.Sprintf("unknown format %q (pb, json or yaml)", req.Format)}
	}
	codecs := scheme.Codecs
	if req.Strict {
		codecs = strictCodecs
	}
	obj, gvk, err := codecs.UniversalDeserializer().Decode(req.Data, nil, nil)
	if err != nil {
		return record{Error: err.Error(), Stage: "decode"}
	}
	obj.GetObjectKind().SetGroupVersionKind(*gvk)
	rec, err := forms(obj, *gvk)
	if err != nil {
		return record{Error: err.Error(), Stage: "forms"}
	}
	return rec
}
