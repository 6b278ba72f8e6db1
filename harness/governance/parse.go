package governance

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// PosError is a constitution error at a line and column ("constitution.yaml:12:5: …").
type PosError struct {
	File      string
	Line, Col int
	Msg       string
}

// Error renders "file:line:col: message" (without the column when it is unknown).
func (e *PosError) Error() string {
	if e.Col == 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ErrInvalidConstitution is wrapped by every parse or validation failure.
var ErrInvalidConstitution = errors.New("invalid constitution")

// parser decodes a constitution from a yaml.Node tree, collecting positioned errors.
type parser struct {
	file string
	errs []error
}

// ParseConstitution parses and validates constitution source; file names it in errors. All
// problems are reported, one per line.
func ParseConstitution(file string, src []byte) (*Constitution, error) {
	p := &parser{file: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConstitution, p.syntaxError(src, err))
	}
	c := &Constitution{Version: 1}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConstitution, &PosError{File: file, Line: 1, Msg: "empty constitution"})
	}
	p.document(doc.Content[0], c)
	if len(p.errs) > 0 {
		return nil, fmt.Errorf("%w:\n%w", ErrInvalidConstitution, errors.Join(p.errs...))
	}
	return c, nil
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)`)

// syntaxError turns a yaml.v3 error into one positioned at a line and column. yaml.v3 names
// only a line (for some errors the line before the enclosing collection's), so the position is
// found as a compiler reports it: the first byte at which the source fails with this same error.
func (p *parser) syntaxError(src []byte, err error) error {
	msg, line := yamlMessage(err)
	if l, c, ok := syntaxPosition(src, msg, line); ok {
		return &PosError{File: p.file, Line: l, Col: c, Msg: msg}
	}
	return &PosError{File: p.file, Line: max(line, 1), Msg: msg}
}

// yamlMessage splits a yaml.v3 error into its message and the line it names (0 when none).
func yamlMessage(err error) (string, int) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return m[2], n
	}
	return msg, 0
}

// yamlFails returns the message of the error parsing src gives, or "" when it parses.
func yamlFails(src []byte) string {
	var n yaml.Node
	if err := yaml.Unmarshal(src, &n); err != nil {
		msg, _ := yamlMessage(err)
		return msg
	}
	return ""
}

// maxPositionedSource bounds the constitutions whose YAML errors syntaxPosition positions.
const maxPositionedSource = 1 << 20

// syntaxPosition finds the 1-based line and column of the byte at which src first fails with
// msg: the shortest line-prefix that does, then the shortest prefix within that line. The
// search starts a line before hint, the line yaml.v3 named (the error is never before it), so
// it parses a few prefixes, not one per line of the file. ok is false when no prefix does.
func syntaxPosition(src []byte, msg string, hint int) (line, col int, ok bool) {
	if len(src) > maxPositionedSource {
		return 0, 0, false
	}
	from := 0
	for l := 1; l < hint-1 && from < len(src); l++ {
		i := bytes.IndexByte(src[from:], '\n')
		if i < 0 {
			break
		}
		from += i + 1
	}
	start, end := 0, -1
	for off := from; off < len(src); {
		next := len(src)
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		if yamlFails(src[:next]) == msg {
			start, end = off, next
			break
		}
		off = next
	}
	if end < 0 {
		return 0, 0, false
	}
	at := end - 1
	for i := start; i < end; i++ {
		if yamlFails(src[:i+1]) == msg {
			at = i
			break
		}
	}
	line = bytes.Count(src[:at], []byte("\n")) + 1
	col = utf8.RuneCount(src[bytes.LastIndexByte(src[:at], '\n')+1:at]) + 1
	return line, col, true
}

// errorf records an error at a node.
func (p *parser) errorf(n *yaml.Node, format string, a ...any) {
	p.errs = append(p.errs, &PosError{File: p.file, Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, a...)})
}

// document decodes the top-level mapping.
func (p *parser) document(n *yaml.Node, c *Constitution) {
	p.mapping(n, "constitution", map[string]func(*yaml.Node){
		"version":   func(v *yaml.Node) { c.Version = p.version(v) },
		"project":   func(v *yaml.Node) { c.Project = p.str(v, "project") },
		"rules":     func(v *yaml.Node) { c.Rules = p.strs(v, "rules", nil) },
		"deny":      func(v *yaml.Node) { c.Deny = p.strs(v, "deny", ValidateGlob) },
		"boundary":  func(v *yaml.Node) { c.Boundary = p.strs(v, "boundary", ValidateGlob) },
		"scope":     func(v *yaml.Node) { p.scope(v, &c.Scope) },
		"approvals": func(v *yaml.Node) { c.Approvals = p.approvals(v) },
		"checks":    func(v *yaml.Node) { c.Checks = p.checks(v) },
	})
}

// mapping walks a mapping node, rejecting unknown and repeated keys.
func (p *parser) mapping(n *yaml.Node, what string, fields map[string]func(*yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping of keys to values", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		fn, ok := fields[k.Value]
		switch {
		case !ok:
			p.errorf(k, "unknown key %q in %s (known: %s)", k.Value, what, knownKeys(fields))
		case seen[k.Value]:
			p.errorf(k, "key %q repeated in %s", k.Value, what)
		default:
			fn(v)
		}
		seen[k.Value] = true
	}
}

func knownKeys(fields map[string]func(*yaml.Node)) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ", ")
}

// version decodes the format version, which must be 1.
func (p *parser) version(n *yaml.Node) int {
	if v, ok := p.int(n); !ok || v != 1 {
		p.errorf(n, "version must be 1")
		return 1
	}
	return 1
}

// scope decodes the default scope.
func (p *parser) scope(n *yaml.Node, s *DefaultScope) {
	p.mapping(n, "scope", map[string]func(*yaml.Node){
		"allow": func(v *yaml.Node) { s.Allow = p.strs(v, "scope.allow", ValidateGlob) },
		"budget": func(v *yaml.Node) {
			if b, ok := p.int(v); ok && b > 0 {
				s.Budget = b
			} else {
				p.errorf(v, "budget must be a positive integer")
			}
		},
		"policy": func(v *yaml.Node) {
			pol := Policy(p.str(v, "policy"))
			if pol != PolicyRecord && pol != PolicyRevert {
				p.errorf(v, "policy must be record or revert, not %q", pol)
			}
			s.Policy = pol
		},
	})
}

// approvals decodes tool → auto|ask|deny.
func (p *parser) approvals(n *yaml.Node) map[string]Approval {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "approvals must map tool names to auto, ask or deny")
		return nil
	}
	out := map[string]Approval{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		a := Approval(p.str(v, "approval"))
		switch {
		case strings.TrimSpace(k.Value) == "":
			p.errorf(k, "approvals: empty tool name")
		case out[k.Value] != "":
			p.errorf(k, "approvals: tool %q repeated", k.Value)
		case a != ApprovalAuto && a != ApprovalAsk && a != ApprovalDeny:
			p.errorf(v, "approval for %s must be auto, ask or deny, not %q", k.Value, a)
		}
		out[k.Value] = a
	}
	return out
}

// checks decodes a list of commands: "cmd" or {name, run}.
func (p *parser) checks(n *yaml.Node) []Check {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "checks must be a list of commands")
		return nil
	}
	var out []Check
	names := map[string]bool{}
	for _, item := range n.Content {
		c := p.check(item)
		if c.Run == "" {
			continue
		}
		if names[c.Name] {
			p.errorf(item, "check %q repeated", c.Name)
		}
		names[c.Name] = true
		out = append(out, c)
	}
	return out
}

// check decodes one check.
func (p *parser) check(n *yaml.Node) Check {
	var c Check
	if n.Kind == yaml.ScalarNode {
		c.Run = strings.TrimSpace(n.Value)
	} else {
		p.mapping(n, "check", map[string]func(*yaml.Node){
			"name": func(v *yaml.Node) { c.Name = p.str(v, "check name") },
			"run":  func(v *yaml.Node) { c.Run = strings.TrimSpace(p.str(v, "check run")) },
		})
	}
	if c.Run == "" {
		p.errorf(n, "check needs a command to run")
	}
	c.Name = firstNonEmpty(c.Name, c.Run)
	return c
}

// strs decodes a list of non-empty strings, validating each with check (may be nil).
func (p *parser) strs(n *yaml.Node, what string, check func(string) error) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list", what)
		return nil
	}
	var out []string
	for _, item := range n.Content {
		s := p.str(item, what)
		if strings.TrimSpace(s) == "" {
			p.errorf(item, "%s: empty entry", what)
			continue
		}
		if check != nil {
			if err := check(s); err != nil {
				p.errorf(item, "%s: %v", what, err)
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// str decodes a scalar string.
func (p *parser) str(n *yaml.Node, what string) string {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, "%s must be a string", what)
		return ""
	}
	return n.Value
}

// int decodes an integer scalar.
func (p *parser) int(n *yaml.Node) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	return v, err == nil
}
