package config

import (
	"errors"
	"net/url"
	"strings"
)

// validateStore checks a store key's value: bbolt, or an etcd:// URL with endpoints and no
// credentials in it. The daemon checks its options when it opens the store. Errors never
// repeat the value: a password put there by mistake stays off the screen and out of logs.
func validateStore(v string) error {
	if v == "" || v == "bbolt" || strings.HasPrefix(v, "bbolt:") {
		return nil
	}
	const want = "store: want bbolt or etcd://host:2379,…/namespace?options"
	u, err := url.Parse(v)
	switch {
	case err != nil:
		return errors.New(want + " (it does not parse as a URL)")
	case u.Scheme != "etcd":
		return errors.New(want)
	case u.User != nil:
		return errors.New("store: put no credentials in the URL; use user=…&password-file=FILE")
	case strings.Trim(u.Host, ",") == "":
		return errors.New("store: no etcd endpoints (etcd://host:2379,…)")
	}
	q := u.Query()
	if q.Has("password") || q.Has("pass") {
		return errors.New("store: put no password in the URL; use password-file=FILE")
	}
	return nil
}

// userFileName names the user's configuration file in messages.
func userFileName() string {
	if f := UserFile(); f != "" {
		return f
	}
	return "your own config.toml"
}

// SourceStoreEnv is the source of a store EXO_STORE names (over the files: a daemon started
// from this environment opens it).
const SourceStoreEnv = "EXO_STORE"

// WithStoreEnv shows in c the store EXO_STORE names (env, "" when unset) in place of the
// files' one, as the daemon started from this environment would open it. A value that is not a
// valid store is not shown (it may carry a credential): a warning says so.
func WithStoreEnv(c *Config, env string) {
	if env = strings.TrimSpace(env); env == "" {
		return
	}
	shown := env
	if err := validateStore(env); err != nil {
		shown = "(invalid)"
		c.Warnings = append(c.Warnings, "EXO_STORE: "+err.Error()+" (the daemon refuses to start with it)")
	}
	for i, v := range c.Values {
		if v.Key == KeyStore {
			c.Values[i] = Value{Key: KeyStore, Value: shown, Source: SourceStoreEnv}
		}
	}
}
