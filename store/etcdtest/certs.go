package etcdtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Certs are PEM files of a certificate authority made for one test, a server certificate
// for 127.0.0.1 and localhost, and a client certificate, all signed by it.
type Certs struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
}

// NewCerts writes a fresh authority and its server and client certificates in dir.
func NewCerts(tb testing.TB, dir string) Certs {
	tb.Helper()
	caKey, caCert, caDER := issue(tb, &x509.Certificate{Subject: pkix.Name{CommonName: "exo test CA"}, IsCA: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}, nil, nil)
	c := Certs{CA: filepath.Join(dir, "ca.pem"), ServerCert: filepath.Join(dir, "server.pem"), ServerKey: filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	writePEM(tb, c.CA, "CERTIFICATE", caDER)
	sKey, _, sDER := issue(tb, &x509.Certificate{Subject: pkix.Name{CommonName: "etcd"}, DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, caCert, caKey)
	writePEM(tb, c.ServerCert, "CERTIFICATE", sDER)
	writeKey(tb, c.ServerKey, sKey)
	cKey, _, cDER := issue(tb, &x509.Certificate{Subject: pkix.Name{CommonName: "exo"}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, caCert, caKey)
	writePEM(tb, c.ClientCert, "CERTIFICATE", cDER)
	writeKey(tb, c.ClientKey, cKey)
	return c
}

// ClientConfig is the TLS configuration of a client presenting the client certificate and
// trusting the authority.
func (c Certs) ClientConfig() (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(c.ClientCert, c.ClientKey)
	if err != nil {
		return nil, err
	}
	ca, err := os.ReadFile(c.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// serial numbers the certificates issued in this process.
var serial int64

// issue makes a key and a certificate from tmpl, signed by parent (self-signed when nil).
func issue(tb testing.TB, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*ecdsa.PrivateKey, *x509.Certificate, []byte) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	serial++
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano() + serial)
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return key, cert, der
}

// writePEM writes one PEM block.
func writePEM(tb testing.TB, path, kind string, der []byte) {
	tb.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// writeKey writes a private key as PEM.
func writeKey(tb testing.TB, path string, key *ecdsa.PrivateKey) {
	tb.Helper()
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	writePEM(tb, path, "EC PRIVATE KEY", der)
}
