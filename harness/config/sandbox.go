package config

import (
	"fmt"
	"strconv"
	"strings"
)

// The [sandbox] table's keys: the caps of every session's sandbox. "auto" (the default) fits
// them to the machine at run time (sandbox.MachineLimits); only the user's own file may set
// them, since a repository must not loosen the caps on what its agent may use.
const (
	KeySandboxProcesses = "sandbox.processes"  // KeySandboxProcesses caps each sandbox's processes.
	KeySandboxMemory    = "sandbox.memory"     // KeySandboxMemory caps each sandbox's memory (e.g. "4G").
	KeySandboxCPUWeight = "sandbox.cpu_weight" // KeySandboxCPUWeight is each sandbox's CPU weight, 1..10000 (100: an ordinary process).
	KeySandboxTmpSize   = "sandbox.tmp_size"   // KeySandboxTmpSize caps each sandbox's temp space (e.g. "1G").
)

// sandboxPrefix starts the keys of the [sandbox] table in flat names.
const sandboxPrefix = "sandbox."

// SandboxKeys lists the [sandbox] table's keys in the order `exo config` shows them.
var SandboxKeys = []string{KeySandboxProcesses, KeySandboxMemory, KeySandboxCPUWeight, KeySandboxTmpSize}

// ParseSize reads a count or a size: "auto" and "" give 0 (the machine's default), else a
// positive number with an optional K, M, G or T suffix (powers of 1024) for sizes.
func ParseSize(v string) (uint64, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "auto" {
		return 0, nil
	}
	mult := uint64(1)
	if i := strings.IndexAny(strings.ToUpper(v), "KMGT"); i > 0 {
		mult = map[byte]uint64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}[strings.ToUpper(v)[i]]
		if rest := strings.ToUpper(v[i+1:]); rest != "" && rest != "B" && rest != "IB" {
			return 0, fmt.Errorf("%q: use a number with an optional K, M, G or T", v)
		}
		v = v[:i]
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q: use auto or a positive number (sizes may end in K, M, G or T)", v)
	}
	return n * mult, nil
}

// validateSandbox checks a [sandbox] value.
func validateSandbox(key, v string) error {
	n, err := ParseSize(v)
	if err != nil {
		return fmt.Errorf("%s %w", key, err)
	}
	switch key {
	case KeySandboxCPUWeight:
		if n > 10000 {
			return fmt.Errorf("%s %q: a weight is 1..10000 (100 is an ordinary process)", key, v)
		}
	case KeySandboxMemory, KeySandboxTmpSize:
		if n != 0 && n < 16<<20 {
			return fmt.Errorf("%s %q: at least 16M", key, v)
		}
	case KeySandboxProcesses:
		if n != 0 && n < 16 {
			return fmt.Errorf("%s %q: at least 16 processes", key, v)
		}
	}
	return nil
}

// sandboxTable checks the [sandbox] table of a file (strings or integers).
func (f *file) sandboxTable(path string, v any) error {
	tbl, ok := v.(map[string]any)
	if !ok {
		return at(path, f.raw, "", "sandbox", "sandbox must be a table: [sandbox] then processes = \"auto\" lines")
	}
	for name, x := range tbl {
		key := sandboxPrefix + name
		if !isSandboxKey(key) {
			f.warn(path, "sandbox", name, fmt.Sprintf("unknown sandbox key %q ignored (known: processes, memory, cpu_weight, tmp_size)", name))
			continue
		}
		if f.project {
			f.warn(path, "sandbox", name, "sandbox."+name+" ignored: a project's configuration may not set the sandbox's caps (set them in "+userFileName()+")")
			continue
		}
		if n, isInt := x.(int64); isInt {
			x = strconv.FormatInt(n, 10)
		}
		if err := f.set(path, "sandbox", name, key, x); err != nil {
			return err
		}
	}
	return nil
}

// isSandboxKey reports whether key is one of the [sandbox] table's.
func isSandboxKey(key string) bool {
	for _, k := range SandboxKeys {
		if k == key {
			return true
		}
	}
	return false
}
