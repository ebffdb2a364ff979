package loopback

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"k8s.io/component-base/metrics/legacyregistry"
)

// metricsEnv names the file a scheduler child writes its counters to when
// it exits (Throughput.Metrics sets it for the measured scheduler).
const metricsEnv = "E2E_SCHEDULER_METRICS"

// WriteMetrics writes this process's counters named scheduler_* (a
// kube-scheduler child, after its command returned), and each histogram's
// sum and count as `name_sum` and `name_count`, to the file the harness
// asked for, one `name{label=value,...} value` a line; nothing unless asked.
func WriteMetrics() error {
	path := os.Getenv(metricsEnv)
	if path == "" {
		return nil
	}
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return fmt.Errorf("gathering the scheduler's metrics: %w", err)
	}
	var b bytes.Buffer
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), "scheduler_") {
			continue
		}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			l := strings.Join(labels, ",")
			switch {
			case m.GetCounter() != nil:
				fmt.Fprintf(&b, "%s{%s} %g\n", mf.GetName(), l, m.GetCounter().GetValue())
			case m.GetHistogram() != nil:
				h := m.GetHistogram()
				fmt.Fprintf(&b, "%s_sum{%s} %g\n%s_count{%s} %d\n", mf.GetName(), l, h.GetSampleSum(), mf.GetName(), l, h.GetSampleCount())
			}
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// Counters are a scheduler's counters as WriteMetrics wrote them.
type Counters map[string]float64

func readCounters(path string) (Counters, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the measured scheduler's metrics: %w", err)
	}
	c := Counters{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return nil, fmt.Errorf("%s: line %q", path, sc.Text())
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %q: %w", path, sc.Text(), err)
		}
		c[key] = v
	}
	return c, sc.Err()
}

// By sums the counter name by the value of label: for
// scheduler_batch_attempts_total by "result", {hint_used: 812, ...}.
func (c Counters) By(name, label string) map[string]float64 {
	out := map[string]float64{}
	for key, v := range c {
		n, labels, ok := strings.Cut(strings.TrimSuffix(key, "}"), "{")
		if !ok || n != name {
			continue
		}
		for _, l := range strings.Split(labels, ",") {
			if k, val, _ := strings.Cut(l, "="); k == label {
				out[val] += v
			}
		}
	}
	return out
}

// Mean is histogram name's mean (its sums over its counts) over the series
// whose labels include every pair of where; 0 without samples.
func (c Counters) Mean(name string, where ...string) float64 {
	var sum, count float64
	for key, v := range c {
		n, labels, ok := strings.Cut(strings.TrimSuffix(key, "}"), "{")
		if !ok || (n != name+"_sum" && n != name+"_count") {
			continue
		}
		have := map[string]string{}
		for _, l := range strings.Split(labels, ",") {
			k, val, _ := strings.Cut(l, "=")
			have[k] = val
		}
		match := true
		for i := 0; i+1 < len(where); i += 2 {
			if have[where[i]] != where[i+1] {
				match = false
			}
		}
		if !match {
			continue
		}
		if n == name+"_sum" {
			sum += v
		} else {
			count += v
		}
	}
	if count == 0 {
		return 0
	}
	return sum / count
}

// Add adds every value of o to c.
func (c Counters) Add(o Counters) {
	for k, v := range o {
		c[k] += v
	}
}

// Format is m as `k=v, k=v` in key order ("none" when empty).
func Format(m map[string]float64) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%.0f", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// ParseText reads Prometheus' text format (a /metrics page) as Counters:
// each sample `name{k="v",...} value` under the key `name{k=v,...}`.
func ParseText(text []byte) Counters {
	c := Counters{}
	for _, line := range strings.Split(string(text), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		key := strings.ReplaceAll(line[:i], `"`, "")
		if !strings.HasSuffix(key, "}") {
			key += "{}"
		}
		c[key] += v
	}
	return c
}
