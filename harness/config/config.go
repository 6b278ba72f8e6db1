// Package config reads the user's configuration: $XDG_CONFIG_HOME/exo/config.toml (else
// ~/.config/exo/config.toml) with the project's .exo/config.toml over it. Clients (the CLI and
// the app) read both files themselves: the configuration is the user's, not the daemon's. The
// daemon reads only a session's project file, for the approval mode it may tighten.
//
// A project file is written by the repository, not by the user: unless the user trusted it
// (exo trust), it may only tighten the approval mode and may not choose the executor; trusted
// or not, it may never choose the store (where the user's sessions go).
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"exo/harness/api"
)

// FileName is the configuration file's name in the user's folder and in a project's .exo.
const FileName = "config.toml"

// ProjectFile is a project's configuration, relative to the project's folder.
var ProjectFile = filepath.Join(".exo", FileName)

// SourceDefault is the source of a value no file set.
const SourceDefault = api.ConfigSourceDefault

// Value is one setting in force and where it comes from: a file's path, or "default".
type Value = api.ConfigValue

// Config is the configuration in force: every known key with its value and source, and the
// warnings reading the files gave (unknown keys, settings an untrusted project may not make).
// Its type is the API's, so that clients read it without this package.
type Config = api.Config

// UserFile returns the user's configuration file: $XDG_CONFIG_HOME/exo/config.toml, else
// ~/.config/exo/config.toml ("" without a home folder).
func UserFile() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "exo", FileName)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "exo", FileName)
	}
	return ""
}

// Options say which files to read.
type Options struct {
	// UserFile is the user's file ("" reads none); a missing file is no error.
	UserFile string
	// Project is the project's folder ("" reads no project file).
	Project string
	// UserInstructions is the user's instructions file (UserInstructionsFile; "" lists none).
	UserInstructions string
	// Trusted reports whether the user trusted the project file's contents (exo trust); nil
	// trusts nothing.
	Trusted func(project string, data []byte) bool
}

// Load reads the user's file and the project's over it. A malformed file is an error naming
// file:line; unknown keys and settings an untrusted project may not make are warnings.
func Load(o Options) (*Config, error) {
	c := &Config{}
	vals := defaults()
	if o.UserFile != "" {
		f, err := readFile("", o.UserFile)
		if err != nil {
			return nil, err
		}
		if f != nil {
			c.Files = append(c.Files, o.UserFile)
			c.Warnings = append(c.Warnings, f.warnings...)
			for k, v := range f.values {
				vals[k] = Value{Key: k, Value: v, Source: o.UserFile}
			}
		}
	}
	if o.Project != "" {
		if err := overProject(c, o, vals); err != nil {
			return nil, err
		}
		c.Instructions = FindInstructions(o.UserInstructions, o.Project, "")
	}
	for _, k := range Known() {
		c.Values = append(c.Values, vals[k])
	}
	return c, nil
}

// overProject applies the project's file over vals with the rules for untrusted projects.
func overProject(c *Config, o Options, vals map[string]Value) error {
	path := filepath.Join(o.Project, ProjectFile)
	f, err := readFile(o.Project, path)
	if err != nil || f == nil {
		return err
	}
	c.Files = append(c.Files, path)
	c.Warnings = append(c.Warnings, f.warnings...)
	trusted := o.Trusted != nil && o.Trusted(o.Project, f.raw)
	keys := make([]string, 0, len(f.values))
	for k := range f.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := f.values[k]
		if !trusted {
			if w := untrustedRefusal(path, k, v, vals[k].Value); w != "" {
				c.Warnings = append(c.Warnings, w)
				continue
			}
		}
		vals[k] = Value{Key: k, Value: v, Source: path}
	}
	return nil
}

// untrustedRefusal says why an untrusted project may not set key to v over current ("" when
// it may).
func untrustedRefusal(path, key, v, current string) string {
	switch key {
	case KeyExecutor:
		return fmt.Sprintf("%s: executor = %q ignored: a project may choose the executor only when you trust its config (exo trust)", path, v)
	case KeyApproval:
		if Stricter(v, current) != v {
			return fmt.Sprintf("%s: approval = %q ignored: it is looser than yours (%q), and a project may only tighten it unless you trust its config (exo trust)", path, v, current)
		}
	}
	return ""
}

// ProjectApproval returns the approval mode a project's file sets ("" when none or unreadable:
// the daemon then applies the request's mode alone) and the error reading it.
func ProjectApproval(project string) (string, error) {
	if project == "" {
		return "", nil
	}
	f, err := readFile(project, filepath.Join(project, ProjectFile))
	if err != nil || f == nil {
		return "", err
	}
	return f.values[KeyApproval], nil
}

// Loosens lists what a project file's contents would set that needs the user's trust (the
// executor, an approval mode looser than read-only): what `exo trust` shows for it.
func Loosens(path string, data []byte) ([]string, error) {
	f, err := parse(path, data, true)
	if err != nil {
		return nil, err
	}
	var out []string
	if v, ok := f.values[KeyExecutor]; ok {
		out = append(out, fmt.Sprintf("config: executor = %q (the agent that runs turns)", v))
	}
	if v, ok := f.values[KeyApproval]; ok && v != ApprovalReadOnly {
		out = append(out, fmt.Sprintf("config: approval = %q (may loosen your approval mode)", v))
	}
	return out, nil
}
