package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/store/etcdtest"
)

// TestParseURL reads every option, and refuses bad ones with a message that names the option
// and never repeats a secret.
func TestParseURL(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("  s3cret-pw\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	notPEM := filepath.Join(dir, "ca.txt")
	os.WriteFile(notPEM, []byte("not a certificate"), 0o600)
	certs := etcdtest.NewCerts(t, dir)

	for _, raw := range []string{"", "bbolt", "  bbolt  ", "bbolt:"} {
		if cfg, err := ParseURL(raw); cfg != nil || err != nil {
			t.Errorf("%q: %+v %v, want the local store", raw, cfg, err)
		}
	}
	cfg, err := ParseURL(fmt.Sprintf("etcd://10.0.0.1:2379,10.0.0.2:2379/team/?node=laptop&blobs=/mnt/b&lease=3s&timeout=2s&user=exo&password-file=%s&max-txn-ops=256&max-request-bytes=3000000&cacert=%s&cert=%s&key=%s",
		pw, certs.CA, certs.ClientCert, certs.ClientKey))
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%v|%s|%s|%s|%v|%v|%v|%s|%s|%d|%d|%v", cfg.Endpoints, cfg.Namespace, cfg.Node, cfg.BlobDir, cfg.LeaseTTL, cfg.RequestTimeout, cfg.DialTimeout,
		cfg.Username, cfg.Password, cfg.MaxTxnOps, cfg.MaxRequestBytes, cfg.TLS != nil && cfg.TLS.RootCAs != nil && len(cfg.TLS.Certificates) == 1)
	if want := "[10.0.0.1:2379 10.0.0.2:2379]|team|laptop|/mnt/b|3s|2s|2s|exo|s3cret-pw|256|3000000|true"; got != want {
		t.Fatalf("parsed\n%s\nwant\n%s", got, want)
	}
	if cfg, err := ParseURL("etcd://h:1?tls=1"); err != nil || cfg.TLS == nil || cfg.TLS.RootCAs != nil {
		t.Fatalf("tls=1 uses the system's roots: %+v %v", cfg, err)
	}
	if cfg, err := ParseURL("etcd://h:1"); err != nil || cfg.TLS != nil || cfg.Namespace != "" {
		t.Fatalf("plain: %+v %v", cfg, err)
	}
	for raw, want := range map[string]string{
		"mysql://h:1":                                               `unknown kind "mysql"`,
		"etcd:///ns":                                                "no etcd endpoints",
		"etcd://exo:hunter2@h:1/ns":                                 "put no credentials in it",
		"etcd://h:1/ns?password=hunter2":                            "put no password in it",
		"etcd://h:1/ns?lese=5s":                                     `unknown option "lese"`,
		"etcd://h:1/ns?node=a&node=b":                               `option "node" given 2 times`,
		"etcd://h:1/ns?lease=soon":                                  `lease "soon": want a duration`,
		"etcd://h:1/ns?lease=-1s":                                   `lease "-1s"`,
		"etcd://h:1/ns?timeout=0s":                                  `timeout "0s"`,
		"etcd://h:1/ns?max-txn-ops=12abc":                           `max-txn-ops "12abc": want a positive whole number`,
		"etcd://h:1/ns?max-request-bytes=-5":                        `max-request-bytes "-5"`,
		"etcd://h:1/ns?user=exo":                                    "user needs password-file",
		"etcd://h:1/ns?password-file=" + pw:                         "password-file needs user",
		"etcd://h:1/ns?user=exo&password-file=" + empty:             "is empty",
		"etcd://h:1/ns?user=exo&password-file=/no/such/file":        "no such file",
		"etcd://h:1/ns?cacert=" + notPEM:                            "no PEM certificate",
		"etcd://h:1/ns?cert=" + certs.ClientCert:                    "cert and key go together",
		"etcd://h:1/ns?cert=" + certs.ClientCert + "&key=" + notPEM: "client certificate",
		"etcd://h:1/ns?tls=yes":                                     "want 1 or 0",
		"etcd://exo:hunter2@h:1/n%zz":                               "invalid URL escape",
	} {
		_, err := ParseURL(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", raw, err, want)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error repeats a secret: %v", raw, err)
		}
	}
}

// TestEtcdTLSAndAuth opens a store on a cluster that serves clients only over TLS with a client
// certificate and has auth on, through the URL's options: it works; a wrong password, a missing
// client certificate or an untrusted server are refused with a clear error.
func TestEtcdTLSAndAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	dir := t.TempDir()
	certs := etcdtest.NewCerts(t, dir)
	c := etcdtest.Start(t, 1, etcdtest.Options{TLS: &certs, User: "exo", Password: "pa55-w0rd"})
	testTLSAndAuth(t, dir, certs, c.Endpoints[0])
}

// testTLSAndAuth is the body of the TLS and auth tests: endpoint serves clients over TLS with
// certs, and has auth on with user exo, password pa55-w0rd; dir is where the test writes files.
func testTLSAndAuth(t *testing.T, dir string, certs etcdtest.Certs, endpoint string) {
	pw, bad := filepath.Join(dir, "pw"), filepath.Join(dir, "bad")
	os.WriteFile(pw, []byte("pa55-w0rd\n"), 0o600)
	os.WriteFile(bad, []byte("wrong\n"), 0o600)
	tlsOpts := fmt.Sprintf("cacert=%s&cert=%s&key=%s", certs.CA, certs.ClientCert, certs.ClientKey)
	open := func(query string, dial time.Duration) (*Store, error) {
		cfg, err := ParseURL(fmt.Sprintf("etcd://%s/secure?node=n&timeout=20s&%s", endpoint, query))
		if err != nil {
			t.Fatal(err)
		}
		cfg.DialTimeout = dial
		return OpenEtcd(t.TempDir(), *cfg, Options{})
	}
	s, err := open(tlsOpts+"&user=exo&password-file="+pw, 30*time.Second)
	if err != nil {
		t.Fatalf("open over TLS with auth: %v", err)
	}
	s.NewBranch("m")
	mustAppend(t, s, "m", 10, 5)
	if rep, err := s.VerifyAll(); err != nil || !rep.OK() || rep.Events != 10 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	s.Close()
	_, err = open(tlsOpts+"&user=exo&password-file="+bad, 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), "authentication failed") || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("a wrong password: %v", err)
	}
	for _, q := range []string{
		"tls=1&user=exo&password-file=" + pw,                   // the system's roots do not know the test's authority
		"cacert=" + certs.CA + "&user=exo&password-file=" + pw, // no client certificate
		"user=exo&password-file=" + pw,                         // no TLS at all
	} {
		if s, err := open(q, 2*time.Second); err == nil {
			s.Close()
			t.Fatalf("%s: opened", q)
		} else if !strings.Contains(err.Error(), "connect to etcd cluster") || strings.Contains(err.Error(), "pa55") {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
