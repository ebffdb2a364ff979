// Package loopback is a Kubernetes cluster on 127.0.0.1 for the harnesses
// of every release module: an embedded etcd and an in-process
// kube-apiserver (the code here compiles unchanged against each release's
// k8s.io/kubernetes), the real kube-scheduler as a child process of the
// harness binary, scheduler_perf's node and pod templates, and the timing
// of a scheduler binding a backlog of pods.
package loopback

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	apiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// Cluster is etcd (embedded) and a kube-apiserver (StartTestServer), both on
// 127.0.0.1: an admin client, its config and a kubeconfig file with it for
// the scheduler.
type Cluster struct {
	Client     kubernetes.Interface
	Config     *rest.Config
	Kubeconfig string
	EtcdAddr   string // etcd's client address

	dir     string
	etcd    *embed.Etcd
	server  apiservertesting.TestServer
	tb      *harnessTB
	logFile *os.File
}

// FreePort is a TCP port free on 127.0.0.1 right now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start starts etcd and the API server under dir (their logs go to
// dir/cluster.log); name names the etcd member and the test; apiserverFlags
// are added to scheduler_perf's.
func Start(dir, name string, apiserverFlags ...string) (c *Cluster, err error) {
	c = &Cluster{dir: dir}
	c.logFile, err = os.Create(filepath.Join(dir, "cluster.log"))
	if err != nil {
		return nil, err
	}
	// klog (the API server's and etcd client's logs) to the file only.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := klogFlags.Set(name, value); err != nil {
			return nil, err
		}
	}
	klog.SetOutput(c.logFile)
	c.tb = &harnessTB{name: name, log: c.logFile, dir: dir}
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(fatalError)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("starting the API server: %s", f.msg)
		}
		if err != nil {
			c.Stop()
			c = nil
		}
	}()

	if err := c.startEtcd(name); err != nil {
		return c, err
	}
	c.EtcdAddr = c.etcd.Clients[0].Addr().String()
	storage := storagebackend.NewDefaultConfig("/registry", nil)
	storage.Transport.ServerList = []string{"http://" + c.EtcdAddr}
	// Flags as scheduler_perf's in-process API server uses them: no
	// controller-manager runs, so no admission plugin may wait for one.
	flags := append([]string{
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,Priority",
	}, apiserverFlags...)
	c.server, err = apiservertesting.StartTestServer(c.tb, apiservertesting.NewDefaultTestServerOptions(), flags, storage)
	if err != nil {
		return c, fmt.Errorf("starting the API server: %w", err)
	}
	c.Config = rest.CopyConfig(c.server.ClientConfig)
	c.Config.QPS = 5000
	c.Config.Burst = 5000
	c.Client, err = kubernetes.NewForConfig(c.Config)
	if err != nil {
		return c, err
	}
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	return c, WriteKubeconfig(c.Config, c.Kubeconfig)
}

func (c *Cluster) startEtcd(name string) error {
	clientPort, err := FreePort()
	if err != nil {
		return err
	}
	peerPort, err := FreePort()
	if err != nil {
		return err
	}
	cfg := embed.NewConfig()
	cfg.Name = name
	cfg.Dir = filepath.Join(c.dir, "etcd")
	cfg.LogLevel = "error"
	cfg.LogOutputs = []string{filepath.Join(c.dir, "etcd.log")}
	clientURL, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(clientPort))
	peerURL, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(peerPort))
	cfg.ListenClientUrls = []url.URL{*clientURL}
	cfg.AdvertiseClientUrls = []url.URL{*clientURL}
	cfg.ListenPeerUrls = []url.URL{*peerURL}
	cfg.AdvertisePeerUrls = []url.URL{*peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	c.etcd = e
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("etcd: %w", err)
	case <-time.After(60 * time.Second):
		return errors.New("etcd did not become ready in 60 s")
	}
}

// Stop stops the API server, then etcd.
func (c *Cluster) Stop() {
	if c.server.TearDownFn != nil {
		c.server.TearDownFn()
	}
	if c.tb != nil {
		c.tb.runCleanups()
	}
	if c.etcd != nil {
		c.etcd.Close()
	}
	if c.logFile != nil {
		klog.Flush()
		_ = c.logFile.Sync()
	}
}

// WriteKubeconfig writes cfg's server and credentials as a kubeconfig file.
func WriteKubeconfig(cfg *rest.Config, path string) error {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.TLSClientConfig.CAData,
		CertificateAuthority:     cfg.TLSClientConfig.CAFile,
		TLSServerName:            cfg.TLSClientConfig.ServerName,
		InsecureSkipTLSVerify:    cfg.TLSClientConfig.Insecure,
	}
	kc.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{
		Token:                 cfg.BearerToken,
		ClientCertificateData: cfg.TLSClientConfig.CertData,
		ClientCertificate:     cfg.TLSClientConfig.CertFile,
		ClientKeyData:         cfg.TLSClientConfig.KeyData,
		ClientKey:             cfg.TLSClientConfig.KeyFile,
	}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e"}
	kc.CurrentContext = "e2e"
	return clientcmd.WriteToFile(*kc, path)
}
