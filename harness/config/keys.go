package config

import (
	"fmt"
	"strings"

	"exo/harness/api"
)

// The configuration's keys.
const (
	KeyModel    = api.ConfigKeyModel    // KeyModel is the registered model new sessions use.
	KeyTheme    = api.ConfigKeyTheme    // KeyTheme is the app's theme.
	KeyApproval = api.ConfigKeyApproval // KeyApproval is the approval mode: auto, ask or read-only.
	KeyExecutor = api.ConfigKeyExecutor // KeyExecutor is the executor of new sessions.
	KeyNotify   = api.ConfigKeyNotify   // KeyNotify lists the notification styles (EXO_NOTIFY overrides it).
	// KeyStore names the store the daemon opens: bbolt (the local file) or
	// etcd://host:2379,…/namespace?options (TLS and auth as options; see store.ParseURL).
	// Only the user's file may set it: a repository must not redirect the user's data.
	KeyStore = api.ConfigKeyStore
)

// Approval modes, from the loosest to the strictest.
const (
	// ApprovalAuto follows the project's rules as they are (the constitution's approvals).
	ApprovalAuto = "auto"
	// ApprovalAsk asks before every tool that can change something (reading tools run).
	ApprovalAsk = "ask"
	// ApprovalReadOnly refuses every tool that can change something.
	ApprovalReadOnly = "read-only"
)

// approvalRank orders the approval modes by strictness.
var approvalRank = map[string]int{"": 0, ApprovalAuto: 0, ApprovalAsk: 1, ApprovalReadOnly: 2}

// ThemeNames are the themes a configuration may name (the app's themes).
var ThemeNames = []string{"auto", "dark", "light", "high-contrast", "no-color"}

// NotifyStyles are the notification styles a configuration may list.
var NotifyStyles = []string{"bell", "osc9", "osc777", "off"}

// KeyActions are the app's remappable keys, as keys.ACTION in the file, with their defaults.
var KeyActions = []struct{ Action, Default string }{
	{"next_pane", "tab"}, {"prev_pane", "shift+tab"}, {"zoom", "z"}, {"help", "?"},
	{"quit", "ctrl+q"}, {"mouse", "alt+m,f2"}, {"editor", "ctrl+g,ctrl+o"}, {"newline", "alt+enter,shift+enter,ctrl+j"},
	{"paste_image", "alt+v"},
}

// keyPrefix starts the keys of the [keys] table in flat names.
const keyPrefix = api.ConfigKeyPrefix

// Known lists every key in the order `exo config` shows them.
func Known() []string {
	out := []string{KeyModel, KeyTheme, KeyApproval, KeyExecutor, KeyNotify, KeyStore}
	for _, a := range KeyActions {
		out = append(out, keyPrefix+a.Action)
	}
	return append(out, SandboxKeys...)
}

// defaults returns every key at its default value.
func defaults() map[string]Value {
	d := map[string]string{KeyModel: "", KeyTheme: "auto", KeyApproval: ApprovalAuto, KeyExecutor: "default", KeyNotify: "bell,osc9", KeyStore: "bbolt"}
	for _, a := range KeyActions {
		d[keyPrefix+a.Action] = a.Default
	}
	for _, k := range SandboxKeys {
		d[k] = "auto"
	}
	out := map[string]Value{}
	for k, v := range d {
		out[k] = Value{Key: k, Value: v, Source: SourceDefault}
	}
	return out
}

// Stricter returns the stricter of two approval modes ("" counts as auto).
func Stricter(a, b string) string {
	if approvalRank[b] > approvalRank[a] {
		return b
	}
	if a == "" {
		return ApprovalAuto
	}
	return a
}

// ApplyApproval returns a tool's policy (auto, ask or deny) under an approval mode: ask makes
// every tool that can change something ask, read-only denies them; a stricter policy stays.
func ApplyApproval(policy, mode string, readOnly bool) string {
	if readOnly || policy == "deny" {
		return policy
	}
	switch mode {
	case ApprovalReadOnly:
		return "deny"
	case ApprovalAsk:
		return "ask"
	}
	return policy
}

// validate checks a value of a known key.
func validate(key, v string) error {
	switch key {
	case KeyTheme:
		return oneOf(v, ThemeNames, "theme")
	case KeyApproval:
		return oneOf(v, []string{ApprovalAuto, ApprovalAsk, ApprovalReadOnly}, "approval mode")
	case KeyExecutor:
		if v == "default" || v == "claude-code" || v == "codex" || (strings.HasPrefix(v, "acp:") && strings.TrimSpace(v[4:]) != "") {
			return nil
		}
		return fmt.Errorf("executor %q: use default, claude-code, codex or acp:COMMAND", v)
	case KeyNotify:
		for _, s := range splitList(v) {
			if err := oneOf(s, NotifyStyles, "notification style"); err != nil {
				return err
			}
		}
	case KeyStore:
		return validateStore(v)
	case KeyModel:
		if strings.ContainsAny(v, " \t\n") {
			return fmt.Errorf("model %q: a registered model's name has no spaces", v)
		}
	case KeySandboxProcesses, KeySandboxMemory, KeySandboxCPUWeight, KeySandboxTmpSize:
		return validateSandbox(key, v)
	default:
		if len(splitList(v)) == 0 {
			return fmt.Errorf("%s: name at least one key (e.g. \"ctrl+q\")", key)
		}
	}
	return nil
}

// oneOf checks v is one of the choices.
func oneOf(v string, choices []string, what string) error {
	for _, c := range choices {
		if v == c {
			return nil
		}
	}
	return fmt.Errorf("%s %q: choose one of %s", what, v, strings.Join(choices, ", "))
}

// splitList splits a comma-separated list, trimming and dropping empty items.
func splitList(s string) []string { return api.ConfigList(s) }
