package api

import "strings"

// Config is the user's configuration in force where a client runs: every known key with its
// value and source, and the warnings reading the files gave. Clients read it themselves (it is
// the user's, not the daemon's); harness/config reads the files into it.
type Config struct {
	Values   []ConfigValue `json:"values"`
	Warnings []string      `json:"warnings,omitempty"`
	// Files are the files read, in the order they apply (later over earlier).
	Files []string `json:"files"`
	// Instructions are the instruction files a session started here loads (AGENTS.md,
	// CLAUDE.md, the user's), in the order they join the prompt.
	Instructions []InstructionSource `json:"instructions,omitempty"`
}

// ConfigValue is one setting in force and where it comes from: a file's path, or "default".
type ConfigValue struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// ConfigSourceDefault is the source of a value no file set.
const ConfigSourceDefault = "default"

// The configuration's keys that clients read.
const (
	ConfigKeyModel    = "model"    // ConfigKeyModel is the registered model new sessions use.
	ConfigKeyTheme    = "theme"    // ConfigKeyTheme is the app's theme.
	ConfigKeyApproval = "approval" // ConfigKeyApproval is the approval mode: auto, ask or read-only.
	ConfigKeyExecutor = "executor" // ConfigKeyExecutor is the executor of new sessions.
	ConfigKeyNotify   = "notify"   // ConfigKeyNotify lists the notification styles.
	// ConfigKeyStore names the store the daemon opens (only the user's file may set it).
	ConfigKeyStore = "store"
)

// ConfigKeyPrefix starts the keys of the [keys] table (the app's remapped keys) in flat names.
const ConfigKeyPrefix = "keys."

// Get returns a key's value ("" when unknown).
func (c *Config) Get(key string) string {
	if v, ok := c.lookup(key); ok {
		return v.Value
	}
	return ""
}

// Source returns where a key's value comes from ("" when unknown).
func (c *Config) Source(key string) string {
	if v, ok := c.lookup(key); ok {
		return v.Source
	}
	return ""
}

// FromFile reports whether a file (not the default) set the key.
func (c *Config) FromFile(key string) bool {
	s := c.Source(key)
	return s != "" && s != ConfigSourceDefault
}

// lookup finds a key's value.
func (c *Config) lookup(key string) (ConfigValue, bool) {
	for _, v := range c.Values {
		if v.Key == key {
			return v, true
		}
	}
	return ConfigValue{}, false
}

// Keys returns the remapped app keys: action → key names.
func (c *Config) Keys() map[string][]string {
	out := map[string][]string{}
	for _, v := range c.Values {
		if a, ok := strings.CutPrefix(v.Key, ConfigKeyPrefix); ok && v.Source != ConfigSourceDefault {
			out[a] = ConfigList(v.Value)
		}
	}
	return out
}

// ConfigList splits a comma-separated value, trimming and dropping empty items.
func ConfigList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
