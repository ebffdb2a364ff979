// Package nodenumber is the decision of our native Go NodeNumber plugin,
// the "same plugin written natively" of the throughput comparisons, as
// kguest's examples/nodenumber (and upstream's TinyGo nodenumber) decides:
// PreScore keeps the last digit of the pod's name (Skip when there is none,
// so Score does not run); Score gives 10 to a node whose name ends in that
// digit and 0 to the others, swapped by args `{"reverse": true}`. Each
// release module wraps it in that release's scheduling framework API
// (1.35 moved it to k8s.io/kube-scheduler/framework and changed the
// signatures), registered under Name.
package nodenumber

import (
	"encoding/json"
	"fmt"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "NodeNumber"

// Args are the plugin's args.
type Args struct {
	Reverse bool `json:"reverse"`
}

// ParseArgs reads the args' raw JSON (none: the defaults).
func ParseArgs(raw []byte) (Args, error) {
	var a Args
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return a, fmt.Errorf("%s args: %w", Name, err)
		}
	}
	return a, nil
}

// Digit is the last character of name as a digit; false when it is not one.
func Digit(name string) (byte, bool) {
	if name == "" {
		return 0, false
	}
	c := name[len(name)-1]
	return c - '0', c >= '0' && c <= '9'
}

// Score is node's score for a pod whose PreScore kept podDigit (kept is
// false when the cycle state has none).
func (a Args) Score(podDigit byte, kept bool, node string) int64 {
	match := true
	if kept {
		d, ok := Digit(node)
		match = ok && d == podDigit
	}
	if match != a.Reverse {
		return 10
	}
	return 0
}
