package store

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ParseURL reads a store location: "" or "bbolt" is the local file in EXO_HOME (nil config);
// etcd://host:2379,host2:2379/namespace?option=… names an etcd cluster. Options: node (this
// daemon's name), blobs (the shared artifact folder), lease (e.g. 10s), timeout (of connecting and of
// each request; default 5s and 10s), user and password-file (auth), cacert, cert and key (TLS; files),
// tls=1 (TLS with the system's roots), max-txn-ops and max-request-bytes (the cluster's
// limits, when not etcd's defaults). An unknown option is refused; errors never repeat the
// URL's values (a password put there by mistake stays out of logs).
func ParseURL(raw string) (*EtcdConfig, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "bbolt" || strings.HasPrefix(raw, "bbolt:") {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the URL
		}
		return nil, fmt.Errorf("store URL: %w (want bbolt or etcd://host:port,…/namespace?options)", err)
	}
	if u.Scheme != "etcd" {
		return nil, fmt.Errorf("store URL: unknown kind %q (want bbolt or etcd://host:port,…/namespace?options)", u.Scheme)
	}
	if u.User != nil {
		return nil, errors.New("store URL: put no credentials in it; use user=…&password-file=…")
	}
	cfg := &EtcdConfig{Namespace: strings.Trim(u.Path, "/")}
	for _, h := range strings.Split(u.Host, ",") {
		if h != "" {
			cfg.Endpoints = append(cfg.Endpoints, h)
		}
	}
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("store URL: no etcd endpoints (etcd://host:2379,…)")
	}
	q := u.Query()
	if err := checkOptions(q); err != nil {
		return nil, err
	}
	cfg.Node, cfg.BlobDir, cfg.Username = q.Get("node"), q.Get("blobs"), q.Get("user")
	if cfg.Password, err = password(q); err != nil {
		return nil, err
	}
	for name, dst := range map[string]*time.Duration{"lease": &cfg.LeaseTTL, "timeout": &cfg.RequestTimeout} {
		if v := q.Get(name); v != "" {
			if *dst, err = time.ParseDuration(v); err != nil || *dst <= 0 {
				return nil, fmt.Errorf("store URL: %s %q: want a duration such as 10s", name, v)
			}
		}
	}
	if cfg.RequestTimeout > 0 {
		cfg.DialTimeout = cfg.RequestTimeout // a slow cluster the user allowed for is slow to connect to as well
	}
	for name, dst := range map[string]*int{"max-txn-ops": &cfg.MaxTxnOps, "max-request-bytes": &cfg.MaxRequestBytes} {
		if v := q.Get(name); v != "" {
			if *dst, err = strconv.Atoi(v); err != nil || *dst <= 0 {
				return nil, fmt.Errorf("store URL: %s %q: want a positive whole number", name, v)
			}
		}
	}
	if cfg.TLS, err = tlsConfig(q); err != nil {
		return nil, err
	}
	return cfg, nil
}

// urlOptions are the options a store URL may carry.
var urlOptions = []string{"node", "blobs", "lease", "timeout", "user", "password-file", "cacert", "cert", "key", "tls", "max-txn-ops", "max-request-bytes"}

// checkOptions refuses unknown or repeated options, naming them (never their values).
func checkOptions(q url.Values) error {
	for name, vals := range q {
		switch {
		case name == "password" || name == "pass":
			return errors.New("store URL: put no password in it; use password-file=FILE")
		case !slices.Contains(urlOptions, name):
			return fmt.Errorf("store URL: unknown option %q (options: %s)", name, strings.Join(urlOptions, ", "))
		case len(vals) > 1:
			return fmt.Errorf("store URL: option %q given %d times", name, len(vals))
		}
	}
	return nil
}

// password reads the password the password-file option names; user and password-file go
// together.
func password(q url.Values) (string, error) {
	file, user := q.Get("password-file"), q.Get("user")
	switch {
	case file == "" && user == "":
		return "", nil
	case file == "":
		return "", errors.New("store URL: user needs password-file=FILE")
	case user == "":
		return "", errors.New("store URL: password-file needs user=NAME")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("store password: %w", err)
	}
	p := strings.TrimSpace(string(b))
	if p == "" {
		return "", fmt.Errorf("store password: %s is empty", file)
	}
	return p, nil
}

// tlsConfig builds the client TLS configuration the URL's options ask for (nil: plain).
func tlsConfig(q url.Values) (*tls.Config, error) {
	ca, cert, key, on := q.Get("cacert"), q.Get("cert"), q.Get("key"), q.Get("tls")
	switch on {
	case "", "1", "true", "0", "false":
	default:
		return nil, fmt.Errorf("store URL: tls %q: want 1 or 0", on)
	}
	if ca == "" && cert == "" && key == "" && (on == "" || on == "0" || on == "false") {
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
	if (cert == "") != (key == "") {
		return nil, errors.New("store URL: cert and key go together (the client certificate and its key)")
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("store client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
