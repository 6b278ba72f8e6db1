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
	if v == "" || v == "bbolt" {
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
