package eventlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"exo/harness/config"
	"exo/store"
)

// StoreURLFile is the older user configuration, in EXO_HOME, that names the store a daemon
// opens when neither `exo daemon --store`, EXO_STORE nor the user's config.toml does (one
// line: bbolt, or etcd://host:2379,…).
const StoreURLFile = "store.url"

// StoreURL returns the store location for home: the option, else EXO_STORE, else the store
// key of the user's configuration file configFile ("" reads none; a project's file never
// names the store), else EXO_HOME/store.url, else "" (the local bbolt file).
func StoreURL(home, option, configFile string) (string, error) {
	if option != "" {
		return option, nil
	}
	if v := os.Getenv("EXO_STORE"); v != "" {
		return v, nil
	}
	if configFile != "" {
		cfg, err := config.Load(config.Options{UserFile: configFile})
		if err != nil {
			return "", fmt.Errorf("read the store from the configuration: %w", err)
		}
		if cfg.FromFile(config.KeyStore) {
			return cfg.Get(config.KeyStore), nil
		}
	}
	b, err := os.ReadFile(filepath.Join(home, StoreURLFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read store configuration: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// StoreConfig says which store to open and how.
type StoreConfig struct {
	// Store names the store: "" (then EXO_STORE, ConfigFile's store key or EXO_HOME/store.url
	// decide; default the local bbolt file) or etcd://host:2379,…/namespace?options.
	Store string
	// ConfigFile is the user's configuration file ("" reads none).
	ConfigFile string
	// NoSync skips fsync on commit: for benchmarks only.
	NoSync bool
	// Evidence lists what the caller keeps in EXO_HOME besides the database: when any of it is
	// there, a missing or empty exo.db was lost, and the local store refuses to start afresh.
	Evidence []string
}

// OpenStore opens the store the options and configuration name, with exo's event vocabulary.
func OpenStore(home string, opts StoreConfig) (*store.Store, error) {
	where, err := StoreURL(home, opts.Store, opts.ConfigFile)
	if err != nil {
		return nil, err
	}
	cfg, err := store.ParseURL(where)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return store.Open(home, store.Options{NoSync: opts.NoSync, Evidence: opts.Evidence, Vocabulary: storeVocabulary})
	}
	return store.OpenEtcd(home, *cfg, store.Options{NoSync: opts.NoSync, Vocabulary: storeVocabulary})
}
