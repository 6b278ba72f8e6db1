package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"exo/sandbox"
)

// baseEnv lists the variables of exo's environment an MCP server inherits; everything else
// (API keys among them) stays out unless the server's config names it in env.
var baseEnv = []string{"PATH", "HOME", "LANG", "USER", "LOGNAME", "SHELL", "TZ", "TERM", "NODE_OPTIONS"}

// launchSpec is what starting a stdio server needs besides its expanded config.
type launchSpec struct {
	home      string // EXO_HOME (masked from confined servers)
	workspace string
	helper    []string
	caps      sandbox.Capabilities
}

// command builds the server's process: through the sandbox helper unless its config says
// sandbox off. It returns the command, a description of its confinement and the paths its
// command line names that the sandbox hides from it.
func command(name string, c ServerConfig, ls launchSpec) (*exec.Cmd, string, []hiddenPath, error) {
	dir := ls.workspace
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if c.Sandbox == "off" {
		cmd := exec.Command(c.Command, c.Args...)
		cmd.Dir = dir
		cmd.Env = serverEnv(os.Environ(), c.Env)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd, "unconfined (sandbox off in its config)", nil, nil
	}
	cfg := sandbox.Config{
		Workspace:     dir,
		TmpDir:        filepath.Join(ls.home, "tmp", "mcp-"+name+"-"+shortHash(dir)),
		Network:       c.Network == nil || *c.Network,
		Env:           envMap(serverEnv(os.Environ(), c.Env)),
		ExtraWritable: writableDirs(c.Writable),
		MaskPaths:     append(append([]string(nil), sandbox.DefaultMaskPaths...), homeMasks(ls.home, dir)...),
		Fallback:      sandbox.RunUnconfined,
		Helper:        ls.helper,
	}
	cmd, enf, err := sandbox.Command(cfg, ls.caps, c.Command, c.Args...)
	if err != nil {
		return nil, "", nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return cmd, "sandboxed: " + enf.String(), hiddenPaths(c, cfg, enf), nil
}

// serverEnv is the allow-listed part of parent plus the server's own variables.
func serverEnv(parent []string, own map[string]string) []string {
	vals := map[string]string{}
	for _, kv := range parent {
		k, v, _ := strings.Cut(kv, "=")
		for _, a := range baseEnv {
			if k == a || strings.HasPrefix(k, "LC_") {
				vals[k] = v
			}
		}
	}
	for k, v := range own {
		vals[k] = v
	}
	out := make([]string, 0, len(vals))
	for k, v := range vals {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// envMap turns KEY=VALUE pairs into a map.
func envMap(kvs []string) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// writableDirs are the package managers' caches (npx and uvx write there) that exist, plus the
// server's own extra folders.
func writableDirs(extra []string) []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil {
		for _, d := range []string{".npm", ".cache", filepath.Join(".local", "share")} {
			if fi, err := os.Stat(filepath.Join(home, d)); err == nil && fi.IsDir() {
				out = append(out, filepath.Join(home, d))
			}
		}
	}
	for _, d := range extra {
		if abs, err := filepath.Abs(d); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

// homeMasks lists what a confined server must not see of EXO_HOME: everything in it but the
// forks' workspaces and temporary folders (a session's workspace may live there).
func homeMasks(home, workspace string) []string {
	entries, err := os.ReadDir(home)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(home, e.Name())
		if e.Name() == "workspaces" || e.Name() == "tmp" || strings.HasPrefix(workspace, p+string(filepath.Separator)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// shortHash names a workspace in a folder name.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// killGroup ends a server and everything it started.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}

// tail keeps the last bytes written to it (a server's stderr).
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// newTail returns a tail of at most max bytes.
func newTail(max int) *tail { return &tail{max: max} }

// Write keeps the end of p.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// String returns what is kept ("" for a nil tail).
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// durationOr returns d, or def when d is zero.
func durationOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
