package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"kguest.dev/tests/extender-e2e/harness/loopback"
)

// yamlDocs splits a multi-document YAML file into its documents.
func yamlDocs(path string) ([][]byte, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := utilyaml.NewYAMLReader(bufioReader(text))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(append(out, line...), '\n')
		}
	}
	return out
}

// serviceAccount is the identity deploy/extender/rbac.yaml gives the
// extender.
type serviceAccount struct{ namespace, name string }

// applyRBAC creates every object of deploy/extender/rbac.yaml (decoded by
// client-go's scheme) and returns its ServiceAccount.
func applyRBAC(ctx context.Context, client kubernetes.Interface, path string) (serviceAccount, error) {
	var sa serviceAccount
	docs, err := yamlDocs(path)
	if err != nil {
		return sa, err
	}
	for _, doc := range docs {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return sa, fmt.Errorf("%s: %w", path, err)
		}
		switch o := obj.(type) {
		case *v1.ServiceAccount:
			_, err = client.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
			sa = serviceAccount{o.Namespace, o.Name}
		case *rbacv1.ClusterRole:
			_, err = client.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		default:
			return sa, fmt.Errorf("%s: unexpected %T (the harness applies ServiceAccount, ClusterRole, ClusterRoleBinding)", path, obj)
		}
		if err != nil {
			return sa, fmt.Errorf("applying %s: %w", path, err)
		}
	}
	if sa.name == "" {
		return sa, fmt.Errorf("%s: no ServiceAccount", path)
	}
	return sa, nil
}

// serviceAccountKubeconfig asks the API server for a token of sa (the
// TokenRequest API, as the kubelet does for a pod) and writes a kubeconfig
// with it and nothing else (no client certificate).
func serviceAccountKubeconfig(ctx context.Context, client kubernetes.Interface, admin *rest.Config, sa serviceAccount, path string) (*rest.Config, error) {
	expiry := int64(3600)
	tr, err := client.CoreV1().ServiceAccounts(sa.namespace).CreateToken(ctx, sa.name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token for %s/%s: %w", sa.namespace, sa.name, err)
	}
	cfg := &rest.Config{
		Host:        admin.Host,
		BearerToken: tr.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:     admin.TLSClientConfig.CAData,
			CAFile:     admin.TLSClientConfig.CAFile,
			ServerName: admin.TLSClientConfig.ServerName,
			Insecure:   admin.TLSClientConfig.Insecure,
		},
	}
	return cfg, loopback.WriteKubeconfig(cfg, path)
}

// checkLeastPrivilege: the service account lists Nodes and is refused Pods
// and Secrets (the API server runs with RBAC only).
func checkLeastPrivilege(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if _, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("the extender's service account cannot list nodes: %w", err)
	}
	if _, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1}); !apierrors.IsForbidden(err) {
		return fmt.Errorf("the extender's service account lists pods (err %v); RBAC should refuse it", err)
	}
	if _, err := client.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{Limit: 1}); !apierrors.IsForbidden(err) {
		return fmt.Errorf("the extender's service account lists secrets (err %v); RBAC should refuse it", err)
	}
	return nil
}

// extenderBlock is deploy/extender/scheduler-extender.yaml's one extender,
// as a map (so every field the file sets reaches the scheduler as written),
// with its weight read for the prediction.
type extenderBlock struct {
	fields map[string]any
	weight int64
}

func readExtenderBlock(path string) (*extenderBlock, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	list, ok := doc["extenders"].([]any)
	if !ok || len(list) != 1 {
		return nil, fmt.Errorf("%s: expected one entry under extenders", path)
	}
	fields, ok := list[0].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: extenders[0] is not a mapping", path)
	}
	b := &extenderBlock{fields: fields, weight: 1}
	if w, ok := fields["weight"].(float64); ok {
		b.weight = int64(w)
	}
	for _, want := range []string{"urlPrefix", "filterVerb", "prioritizeVerb", "nodeCacheCapable", "enableHTTPS", "tlsConfig", "ignorable"} {
		if _, ok := fields[want]; !ok {
			return nil, fmt.Errorf("%s: extenders[0] has no %s", path, want)
		}
	}
	return b, nil
}

// forLoopback is the block with only what differs on this machine
// changed: the URL (127.0.0.1:port, the scheme and path kept), the TLS
// files, and, for a fault case, ignorable.
func (b *extenderBlock) forLoopback(port int, files *tlsFiles, ignorable *bool) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range b.fields {
		out[k] = v
	}
	prefix, _ := b.fields["urlPrefix"].(string)
	scheme, rest, ok := strings.Cut(prefix, "://")
	if !ok {
		return nil, fmt.Errorf("urlPrefix %q has no scheme", prefix)
	}
	path := ""
	if i := strings.Index(rest, "/"); i >= 0 {
		path = rest[i:]
	}
	out["urlPrefix"] = fmt.Sprintf("%s://127.0.0.1:%d%s", scheme, port, path)
	if tlsConfig, ok := b.fields["tlsConfig"].(map[string]any); ok {
		t := map[string]any{}
		for k, v := range tlsConfig {
			t[k] = v
		}
		t["certFile"], t["keyFile"], t["caFile"] = files.clientCert, files.clientKey, files.serverCA
		out["tlsConfig"] = t
	}
	if ignorable != nil {
		out["ignorable"] = *ignorable
	}
	return out, nil
}

// deployProfile writes deploy/extender/plugins.yaml with its guestURL
// pointed at the built nodenumber.wasm.
func deployProfile(deployDir, pluginsDir, out string) error {
	return writeProfile(deployDir, pluginsDir, out, false)
}

// extenderProfile is deployProfile plus the taints example as a second
// plugin, so the extender's filter verb has a Filter to run (nodenumber has
// PreScore and Score only).
func extenderProfile(deployDir, pluginsDir, out string) error {
	return writeProfile(deployDir, pluginsDir, out, true)
}

func writeProfile(deployDir, pluginsDir, out string, taints bool) error {
	path := filepath.Join(deployDir, "plugins.yaml")
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	profiles, _ := doc["profiles"].([]any)
	if len(profiles) != 1 {
		return fmt.Errorf("%s: expected one profile", path)
	}
	prof := profiles[0].(map[string]any)
	configs, _ := prof["pluginConfig"].([]any)
	found := false
	for _, c := range configs {
		pc := c.(map[string]any)
		args, _ := pc["args"].(map[string]any)
		if u, _ := args["guestURL"].(string); strings.HasSuffix(u, "/nodenumber.wasm") {
			args["guestURL"] = "file://" + filepath.Join(pluginsDir, "nodenumber.wasm")
			found = true
		}
	}
	if !found {
		return fmt.Errorf("%s: no plugin with guestURL .../nodenumber.wasm", path)
	}
	if taints {
		prof["pluginConfig"] = append(configs, map[string]any{
			"name": "Taints",
			"args": map[string]any{"guestURL": "file://" + filepath.Join(pluginsDir, "taints.wasm")},
		})
		plugins := prof["plugins"].(map[string]any)
		multi := plugins["multiPoint"].(map[string]any)
		multi["enabled"] = append(multi["enabled"].([]any), map[string]any{"name": "Taints"})
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
