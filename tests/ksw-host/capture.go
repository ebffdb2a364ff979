package main

import (
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
)

// recorder collects a case's records in order. It is also the framework's
// event recorder: each Eventf is recorded with the fields KSW's host hands
// it (the note as given; KSW passes one nil format argument).
type recorder struct {
	mu      sync.Mutex
	records []Record
}

func (r *recorder) add(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec)
}

// Eventf implements k8s.io/client-go/tools/events.EventRecorder.
func (r *recorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...interface{}) {
	rec := Record{"event": eventtype, "reason": reason, "action": action, "note": note}
	rec["regarding"] = reference(regarding)
	rec["related"] = reference(related)
	r.add(rec)
}

// reference is the *v1.ObjectReference KSW's host builds from the guest's
// message, as `kind/namespace/name/uid`.
func reference(obj runtime.Object) string {
	ref, ok := obj.(*v1.ObjectReference)
	if !ok || ref == nil {
		return fmt.Sprintf("%T", obj)
	}
	return ref.Kind + "/" + ref.Namespace + "/" + ref.Name + "/" + string(ref.UID)
}

// capture routes klog (which KSW's host logs the guest's messages to) into
// the current case's records.
var capture = &klogCapture{}

type klogCapture struct {
	mu  sync.Mutex
	rec *recorder
}

func init() {
	klog.SetLogger(logr.New(capture))
}

func (c *klogCapture) start(rec *recorder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rec = rec
}

func (c *klogCapture) stop() { c.start(nil) }

func (c *klogCapture) add(rec Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rec != nil {
		c.rec.add(rec)
	}
}

// Init, Enabled, Info, Error, WithValues and WithName make klogCapture a
// logr.LogSink. Only level 0 is enabled: klog's default verbosity.
func (c *klogCapture) Init(logr.RuntimeInfo)          {}
func (c *klogCapture) Enabled(level int) bool         { return level == 0 }
func (c *klogCapture) WithValues(...any) logr.LogSink { return c }
func (c *klogCapture) WithName(string) logr.LogSink   { return c }

func (c *klogCapture) Info(level int, msg string, kvs ...any) {
	c.add(Record{"log": "info", "msg": msg, "kvs": kvStrings(kvs)})
}

func (c *klogCapture) Error(err error, msg string, kvs ...any) {
	rec := Record{"log": "error", "msg": msg, "kvs": kvStrings(kvs)}
	if err != nil {
		rec["err"] = err.Error()
	}
	c.add(rec)
}

func kvStrings(kvs []any) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = fmt.Sprint(kv)
	}
	return out
}
