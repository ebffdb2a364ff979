package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// tlsFiles are the PEM files of the extender's mTLS: two CAs, as in
// deploy/extender (one signs the extender's serving certificate, the other
// the client certificate kube-scheduler presents).
type tlsFiles struct {
	serverCA, serverCert, serverKey string
	clientCA, clientCert, clientKey string
}

type keyPair struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	der  []byte
}

var serial int64

func newCert(tmpl *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &keyPair{cert: cert, key: key, der: der}, nil
}

func newCA(name string) (*keyPair, error) {
	return newCert(&x509.Certificate{
		Subject:               pkix.Name{CommonName: name},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil)
}

func (k *keyPair) write(dir, name string) (certPath, keyPath string, err error) {
	certPath = filepath.Join(dir, name+".crt")
	keyPath = filepath.Join(dir, name+".key")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.der}), 0o600); err != nil {
		return "", "", err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(k.key)
	if err != nil {
		return "", "", err
	}
	return certPath, keyPath, os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// makeTLS writes the two CAs, a serving certificate for 127.0.0.1 and a
// client certificate for kube-scheduler under dir.
func makeTLS(dir string) (*tlsFiles, error) {
	var f tlsFiles
	serverCA, err := newCA("kguest-extender serving CA (e2e)")
	if err != nil {
		return nil, err
	}
	clientCA, err := newCA("kguest-extender client CA (e2e)")
	if err != nil {
		return nil, err
	}
	server, err := newCert(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kguest-extender"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, serverCA)
	if err != nil {
		return nil, err
	}
	client, err := newCert(&x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-scheduler"},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, clientCA)
	if err != nil {
		return nil, err
	}
	if f.serverCA, _, err = serverCA.write(dir, "server-ca"); err != nil {
		return nil, err
	}
	if f.clientCA, _, err = clientCA.write(dir, "client-ca"); err != nil {
		return nil, err
	}
	if f.serverCert, f.serverKey, err = server.write(dir, "server"); err != nil {
		return nil, err
	}
	if f.clientCert, f.clientKey, err = client.write(dir, "client"); err != nil {
		return nil, err
	}
	return &f, nil
}
