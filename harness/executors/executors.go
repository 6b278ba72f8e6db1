// Package executors looks exo's executors up by name: exo's own ("default") and the external
// agents exo can drive (claude-code, codex, any ACP agent as acp:COMMAND [ARGS]). The CLI, the app and the daemon open one with Open and run
// turns through the Runner it returns, whatever executor it is.
package executors

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/extexec/acp"
	"exo/harness/extexec/claude"
	"exo/harness/extexec/codex"
)

// Runner runs turns on sessions; exo's own executor and every external adapter have this shape.
type Runner interface {
	// Prompt appends a user message to a session and runs the turn it starts.
	Prompt(ctx context.Context, sessionID, text, source string) (executor.Result, error)
	// Close stops what the runner started (agent processes).
	Close() error
	// StopSession stops what the runner keeps for a session between turns (its agent process).
	StopSession(sessionID string) error
}

// Options choose how an executor runs.
type Options struct {
	// Exec are exo's executor options (approvals, scope, callbacks), applied to every executor.
	Exec executor.Options
	// NativeTools lets an external agent use its own tools, each use approved by exo.
	NativeTools bool
	// AllowUnconfined runs an agent that acts itself (native tools, ACP agents) even where its
	// process cannot be fully confined: the user's explicit consent.
	AllowUnconfined bool
	// Mode is the session mode an ACP agent runs in; empty lets exo pick one in which the agent
	// asks exo before it acts. Other executors have no modes.
	Mode string
}

// Default is the name of exo's own executor.
const Default = harness.DefaultExecutorName

// Names lists the executors exo knows, exo's own first (and any ACP agent as acp:COMMAND).
func Names() []string { return []string{Default, claude.Name, codex.Name, acp.Prefix + "COMMAND"} }

// Open returns the executor named name ("" is exo's own).
func Open(h *harness.Harness, name string, o Options) (Runner, error) {
	if o.Mode != "" && !IsACP(name) {
		return nil, fmt.Errorf("--executor-mode applies to ACP agents (acp:COMMAND), not to %s", firstNonEmpty(name, Default))
	}
	switch name {
	case "", Default:
		return &own{Executor: executor.New(h, o.Exec), h: h}, nil
	case claude.Name, "claude":
		return claude.New(h, claude.Options{Exec: o.Exec, NativeTools: o.NativeTools, AllowUnconfined: o.AllowUnconfined})
	case codex.Name:
		return codex.New(h, codex.Options{Exec: o.Exec, NativeTools: o.NativeTools, AllowUnconfined: o.AllowUnconfined})
	}
	if strings.HasPrefix(name, acp.Prefix) {
		cmd, err := acp.Parse(name)
		if err != nil {
			return nil, err
		}
		return acp.New(h, acp.Options{Exec: o.Exec, Command: cmd, AllowUnconfined: o.AllowUnconfined, Mode: o.Mode})
	}
	return nil, fmt.Errorf("unknown executor %q (known: %v)", name, Names())
}

// IsACP reports whether name is an ACP agent's (acp:COMMAND [ARGS]): only those have modes.
func IsACP(name string) bool { return strings.HasPrefix(name, acp.Prefix) }

// own is exo's executor as a Runner: it records executor.selected when a session comes back to
// it from another executor.
type own struct {
	*executor.Executor
	h *harness.Harness
}

// Prompt records the switch back to exo's executor if needed, then runs the turn.
func (o *own) Prompt(ctx context.Context, sessionID, text, source string) (executor.Result, error) {
	if st, err := o.h.State(sessionID); err == nil && st.Executor != "" && st.Executor != Default {
		if _, err := o.h.Append(sessionID, harness.MustRecord(harness.TypeExecutorSelected, harness.ActorUser,
			harness.ExecutorSelected{Name: Default})); err != nil {
			return executor.Result{SessionID: sessionID}, err
		}
	}
	return o.Executor.Prompt(ctx, sessionID, text, source)
}

// Close does nothing: exo's executor holds no processes of its own.
func (o *own) Close() error { return nil }

// StopSession does nothing: exo's executor keeps nothing for a session between turns.
func (o *own) StopSession(string) error { return nil }

// NativeFlag after an executor's name selects it with its own tools (claude-code --native-tools).
const NativeFlag = "--native-tools"

// ParseChoice reads an executor choice, "NAME [--native-tools]": the name and whether the agent
// keeps its own tools. An ACP agent's words are its command line, taken as they are (ACP agents
// always run their own tools); exo's own executor has no other tools.
func ParseChoice(choice string) (name string, native bool, err error) {
	choice = strings.TrimSpace(choice)
	if strings.HasPrefix(choice, acp.Prefix) {
		return choice, false, nil
	}
	f := strings.Fields(choice)
	if len(f) == 0 {
		return Default, false, nil
	}
	name = f[0]
	for _, w := range f[1:] {
		if w != NativeFlag {
			return name, false, fmt.Errorf("executor %s: unknown option %q (only %s)", name, w, NativeFlag)
		}
		native = true
	}
	if native && (name == Default || name == "") {
		return name, false, fmt.Errorf("%s is for external agents: exo's own executor runs exo's tools", NativeFlag)
	}
	if name == "claude" {
		name = claude.Name
	}
	return name, native, nil
}

// Probe checks which executors can run on this machine (binary found, version); ACP agents are
// listed as the known ones found (acp:claude-agent-acp…), or one acp:COMMAND line saying none
// was found.
func Probe() []Info {
	out := []Info{{Name: Default, Usable: true, Version: "built in"}}
	out = append(out, probe(claude.Name, claude.FindBinary, claude.Version), probe(codex.Name, codex.FindBinary, codex.Version))
	found := acp.Probe()
	for _, f := range found {
		out = append(out, Info{Name: acp.Prefix + f.Command, Usable: true, Binary: f.Path, Version: firstNonEmpty(f.Version, "version unknown")})
	}
	if len(found) == 0 {
		out = append(out, Info{Name: acp.Prefix + "COMMAND", Problem: fmt.Sprintf("none of the known ACP agents (%s) found on PATH or $EXO_ACP_PATH; any ACP agent runs as acp:COMMAND [ARGS]",
			strings.Join(acp.KnownAgents, ", "))})
	}
	sort.SliceStable(out[1:], func(i, j int) bool { return out[1+i].Name < out[1+j].Name })
	return out
}

// Check says whether the executor named name can run here (its binary found; its version for
// claude-code and codex), or why not.
func Check(name string) (Info, error) {
	var in Info
	switch {
	case name == "" || name == Default:
		return Info{Name: Default, Usable: true, Version: "built in"}, nil
	case name == claude.Name || name == "claude":
		in = probe(claude.Name, claude.FindBinary, claude.Version)
	case name == codex.Name:
		in = probe(codex.Name, codex.FindBinary, codex.Version)
	case strings.HasPrefix(name, acp.Prefix):
		cmd, err := acp.Parse(name)
		if err != nil {
			return Info{Name: name}, err
		}
		in = Info{Name: name}
		if in.Binary, err = acp.FindCommand(cmd[0]); err != nil {
			in.Problem = err.Error()
		} else {
			in.Usable, in.Version = true, acp.PackageVersion(in.Binary)
		}
	default:
		return Info{Name: name}, fmt.Errorf("unknown executor %q (known: %v)", name, Names())
	}
	if !in.Usable {
		return in, fmt.Errorf("executor %s is not usable here: %s", in.Name, in.Problem)
	}
	return in, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// probe finds one agent's binary and asks its version.
func probe(name string, find func() (string, error), version func(string) (string, error)) Info {
	in := Info{Name: name}
	bin, err := find()
	if err != nil {
		in.Problem = err.Error()
		return in
	}
	in.Binary = bin
	if in.Version, err = version(bin); err != nil {
		in.Problem = err.Error()
		return in
	}
	in.Usable = true
	return in
}

// ForSession returns the executor a session's next turn uses: name when given, else the one in
// force in its log (executor.selected), else exo's own.
func ForSession(h *harness.Harness, sessionID, name string) string {
	if name != "" {
		return name
	}
	if st, err := h.State(sessionID); err == nil && st.Executor != "" {
		return st.Executor
	}
	return Default
}
