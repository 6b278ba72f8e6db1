package config

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"exo/sandbox"
)

// maxFileBytes bounds a configuration file (a larger one is refused, not read).
const maxFileBytes = 1 << 20

// file is one configuration file read and checked: its values by flat key and its warnings.
type file struct {
	// project is set for a project's file, which may not set every key.
	project  bool
	raw      []byte
	values   map[string]string
	warnings []string
}

// readFile reads and checks a configuration file; nil, nil when it does not exist. A file in
// project (the agent's workspace; "" for the user's file) is read beneath it without following
// any link; either way only a regular file of at most maxFileBytes is read, so a named pipe,
// a device or a link swapped in after a check can neither block exo nor lead it outside.
func readFile(project, path string) (*file, error) {
	raw, err := sandbox.ReadFileIn(project, path, maxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, sandbox.ErrTooLarge):
		return nil, fmt.Errorf("configuration %s: over the %d-byte limit", path, maxFileBytes)
	case errors.Is(err, sandbox.ErrNotRegular):
		return nil, fmt.Errorf("configuration %s: not a regular file", path)
	case err != nil:
		return nil, fmt.Errorf("configuration %s: %w", path, err)
	}
	return parse(path, raw, project != "")
}

// parse decodes and checks a configuration file's contents (a project's when project is set).
func parse(path string, raw []byte, project bool) (*file, error) {
	var doc map[string]any
	if _, err := toml.Decode(string(raw), &doc); err != nil {
		return nil, syntaxError(path, err)
	}
	f := &file{project: project, raw: raw, values: map[string]string{}}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := f.top(path, k, doc[k]); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// top checks one top-level entry: a setting or the [keys] table.
func (f *file) top(path, k string, v any) error {
	if k == "keys" {
		tbl, ok := v.(map[string]any)
		if !ok {
			return at(path, f.raw, "", k, "keys must be a table: [keys] then action = \"key\" lines")
		}
		return f.keys(path, tbl)
	}
	if k == "sandbox" {
		return f.sandboxTable(path, v)
	}
	switch k {
	case KeyStore:
		if f.project {
			f.warn(path, "", k, "store ignored: a project's configuration may not choose where your sessions are stored (set it in "+userFileName()+", or exo daemon --store)")
			return nil
		}
		return f.set(path, "", k, k, v)
	case KeyModel, KeyTheme, KeyApproval, KeyExecutor, KeyNotify:
		return f.set(path, "", k, k, v)
	}
	f.warn(path, "", k, fmt.Sprintf("unknown key %q ignored (known: %s, [keys], [sandbox])", k, strings.Join(Known()[:6], ", ")))
	return nil
}

// keys checks the [keys] table.
func (f *file) keys(path string, tbl map[string]any) error {
	names := make([]string, 0, len(tbl))
	for a := range tbl {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		if _, ok := knownAction(a); !ok {
			f.warn(path, "keys", a, fmt.Sprintf("unknown key action %q ignored (known: %s)", a, strings.Join(actionNames(), ", ")))
			continue
		}
		if err := f.set(path, "keys", a, keyPrefix+a, tbl[a]); err != nil {
			return err
		}
	}
	return nil
}

// set checks one value (a string, or for lists an array of strings) and records it.
func (f *file) set(path, table, name, key string, v any) error {
	s, ok := v.(string)
	if arr, isArr := v.([]any); isArr && (key == KeyNotify || table == "keys") {
		parts := make([]string, 0, len(arr))
		for _, x := range arr {
			xs, isStr := x.(string)
			if !isStr {
				return at(path, f.raw, table, name, fmt.Sprintf("%s: every item must be a string", key))
			}
			parts = append(parts, xs)
		}
		s, ok = strings.Join(parts, ","), true
	}
	if !ok {
		return at(path, f.raw, table, name, fmt.Sprintf("%s must be a string, not %T", key, v))
	}
	s = strings.TrimSpace(s)
	if err := validate(key, s); err != nil {
		return at(path, f.raw, table, name, err.Error())
	}
	f.values[key] = s
	return nil
}

// warn records a warning naming the key's line.
func (f *file) warn(path, table, name, msg string) {
	f.warnings = append(f.warnings, at(path, f.raw, table, name, msg).Error())
}

// knownAction finds a remappable key action.
func knownAction(a string) (string, bool) {
	for _, k := range KeyActions {
		if k.Action == a {
			return k.Default, true
		}
	}
	return "", false
}

// actionNames lists the remappable actions.
func actionNames() []string {
	out := make([]string, 0, len(KeyActions))
	for _, k := range KeyActions {
		out = append(out, k.Action)
	}
	return out
}

// syntaxError renders a TOML error as file:line:col: message.
func syntaxError(path string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Usage != "" {
			msg += " (" + strings.TrimSpace(strings.SplitN(pe.Usage, "\n", 2)[0]) + ")"
		}
		return fmt.Errorf("%s:%d:%d: %s", path, pe.Position.Line, pe.Position.Col, msg)
	}
	if m := lineInError.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%s:%s: %s", path, m[1], strings.TrimPrefix(err.Error(), "toml: "))
	}
	return fmt.Errorf("%s: %w", path, err)
}

// lineInError finds "line N" in the decoder's other errors.
var lineInError = regexp.MustCompile(`line (\d+)`)

// at is an error naming the file and the line where key is set (in table, "" for the top).
func at(path string, raw []byte, table, key, msg string) error {
	if n := lineOf(raw, table, key); n > 0 {
		return fmt.Errorf("%s:%d: %s", path, n, msg)
	}
	return fmt.Errorf("%s: %s", path, msg)
}

// lineOf finds the line (from 1) that sets key in table, or the table's header for a table
// key; 0 when not found.
func lineOf(raw []byte, table, key string) int {
	cur := ""
	for i, line := range strings.Split(string(raw), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "[[") {
			cur = strings.Trim(strings.TrimSpace(strings.SplitN(t, "#", 2)[0]), "[] ")
			if table == "" && cur == key {
				return i + 1
			}
			continue
		}
		name, _, ok := strings.Cut(t, "=")
		if !ok {
			continue
		}
		name = strings.TrimSpace(name)
		if uq, err := strconv.Unquote(name); err == nil {
			name = uq
		}
		if cur == table && name == key || table == "" && cur == "" && name == key || cur == "" && name == table+"."+key {
			return i + 1
		}
	}
	return 0
}
