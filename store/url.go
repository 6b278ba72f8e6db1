package store

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// ParseURL reads a store location: "" or "bbolt" is the local file in EXO_HOME (nil config);
// etcd://host:2379,host2:2379/namespace?option=… names an etcd cluster. Options: node (this
// daemon's name), blobs (the shared artifact folder), lease (e.g. 10s), timeout (of each
// request, default 10s), user and password-file
// (auth), cacert, cert and key (TLS; files), tls=1 (TLS with the system's roots),
// max-txn-ops and max-request-bytes (the cluster's limits, when not etcd's defaults).
func ParseURL(raw string) (*EtcdConfig, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "bbolt" || strings.HasPrefix(raw, "bbolt:") {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("store %q: %w", raw, err)
	}
	if u.Scheme != "etcd" {
		return nil, fmt.Errorf("store %q: unknown kind %q (want bbolt or etcd://host:port,…)", raw, u.Scheme)
	}
	cfg := &EtcdConfig{Namespace: strings.Trim(u.Path, "/")}
	for _, h := range strings.Split(u.Host, ",") {
		if h != "" {
			cfg.Endpoints = append(cfg.Endpoints, h)
		}
	}
	if len(cfg.Endpoints) == 0 {
		return nil, fmt.Errorf("store %q: no etcd endpoints", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("store %q: put no credentials in the URL; use user=…&password-file=…", redact(u))
	}
	q := u.Query()
	cfg.Node, cfg.BlobDir, cfg.Username = q.Get("node"), q.Get("blobs"), q.Get("user")
	if p := q.Get("password-file"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("store password: %w", err)
		}
		cfg.Password = strings.TrimSpace(string(b))
	}
	for name, dst := range map[string]*time.Duration{"lease": &cfg.LeaseTTL, "timeout": &cfg.RequestTimeout} {
		if v := q.Get(name); v != "" {
			if *dst, err = time.ParseDuration(v); err != nil || *dst <= 0 {
				return nil, fmt.Errorf("store %s %q: want a duration such as 10s", name, v)
			}
		}
	}
	for name, dst := range map[string]*int{"max-txn-ops": &cfg.MaxTxnOps, "max-request-bytes": &cfg.MaxRequestBytes} {
		if v := q.Get(name); v != "" {
			if _, err := fmt.Sscan(v, dst); err != nil {
				return nil, fmt.Errorf("store %s %q: %w", name, v, err)
			}
		}
	}
	if cfg.TLS, err = tlsConfig(q); err != nil {
		return nil, err
	}
	return cfg, nil
}

// tlsConfig builds the client TLS configuration the URL's options ask for (nil: plain).
func tlsConfig(q url.Values) (*tls.Config, error) {
	ca, cert, key := q.Get("cacert"), q.Get("cert"), q.Get("key")
	if ca == "" && cert == "" && q.Get("tls") == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("store cacert: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("store cacert %s: no PEM certificate in it", ca)
		}
	}
	if cert != "" || key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("store client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// redact shows a URL without its password.
func redact(u *url.URL) string { return u.Redacted() }
