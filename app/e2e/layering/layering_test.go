package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// pkg is what `go list -deps -json` says of one package.
type pkg struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// rule is one import rule: no package at or under any of from depends, directly or through
// other packages, on a package at or under any of not (or, when notExo is set, on any exo
// package but from's own, or any module outside the standard library).
type rule struct {
	name string
	// skip, when set, names what the rule waits for: the rule is listed but not enforced.
	skip   string
	from   []string
	not    []string
	notExo bool
	// notExact are packages from may not depend on, without the packages below them (the
	// harness package itself, not harness/api).
	notExact []string
	// except are packages under not that from may depend on (harness/api under harness).
	except []string
	// fromExact binds the rule to the packages of from alone, not those below them (app, not
	// app/cli; app/cli, not app/cli/local, which runs the harness's code for it).
	fromExact bool
	// only, when set, are the exo packages from may depend on (each exactly, not the packages
	// below it): any other exo package breaks the rule.
	only []string
}

// rules are DESIGN's: imports point down app → views; app → harness/api; harness → sandbox,
// store. views never touches store or sandbox, store knows nothing about agents, sandbox nothing
// about models, and harness/api is a leaf.
var rules = []rule{
	{name: "views imports neither store nor sandbox", from: []string{"exo/views"}, not: []string{"exo/store", "exo/sandbox"}},
	{
		name:   "api imports no other exo package and no third-party module",
		from:   []string{"exo/harness/api"},
		notExo: true,
	},
	{
		name:   "termsafe, the one sanitizer of sandbox and views, imports no other exo package and no third-party module",
		from:   []string{"exo/themes/termsafe"},
		notExo: true,
	},
	{name: "store imports nothing of harness, app or views", from: []string{"exo/store"}, not: []string{"exo/harness", "exo/app", "exo/views"}},
	{name: "sandbox imports nothing of harness, app or views", from: []string{"exo/sandbox"}, not: []string{"exo/harness", "exo/app", "exo/views"}},
	// The harness's rooms (harness/doc.go's map): each imports only the rooms below it, none
	// imports the harness package, and none what is built on the harness.
	{name: "eventlog imports no other room", from: []string{"exo/harness/eventlog"}, not: rooms("eventlog")},
	{name: "sealed imports no other room", from: []string{"exo/harness/sealed"}, not: rooms("sealed")},
	{name: "models imports no other room", from: []string{"exo/harness/models"}, not: rooms("models")},
	{name: "sessions imports no room but eventlog and sealed", from: []string{"exo/harness/sessions"}, not: rooms("sessions", "eventlog", "sealed")},
	{name: "runtimes imports no room but eventlog, sealed and sessions", from: []string{"exo/harness/runtimes"}, not: rooms("runtimes", "eventlog", "sealed", "sessions")},
	{
		name: "workspaces imports no room but eventlog, sealed, sessions and runtimes", from: []string{"exo/harness/workspaces"},
		not: rooms("workspaces", "eventlog", "sealed", "sessions", "runtimes"),
	},
	{
		name: "the app reaches state only through the API: of exo it imports api, views and themes",
		from: []string{"exo/app"}, fromExact: true,
		not: []string{"exo/harness", "exo/store", "exo/sandbox"}, except: []string{"exo/harness/api"},
	},
	{
		name: "the command line and the thin client link only the daemon's client: of exo they import api, the client, the app, views and themes",
		from: []string{"exo/app/cli", "exo/app/thin"}, fromExact: true,
		only: clientSide,
	},
	{
		name: "the daemon's binary links no terminal UI: of the app only the command line, no views, no charm library",
		from: []string{"exo/app/daemon"},
		not: []string{"exo/app", "exo/views", "exo/themes", "charm.land/bubbletea/v2", "charm.land/lipgloss/v2", "charm.land/glamour/v2",
			"github.com/alecthomas/chroma/v2", "github.com/charmbracelet/x/ansi"},
		except: []string{"exo/app/cli", "exo/app/thin", "exo/views/plaintext", "exo/themes/termsafe"},
	},
	{
		name:     "no room imports the harness or what is built on it",
		from:     []string{"exo/harness/eventlog", "exo/harness/sealed", "exo/harness/models", "exo/harness/sessions", "exo/harness/runtimes", "exo/harness/workspaces"},
		not:      []string{"exo/harness/executor", "exo/harness/executors", "exo/harness/extexec", "exo/harness/service", "exo/harness/daemon", "exo/harness/mcp", "exo/harness/governance", "exo/app", "exo/views"},
		notExact: []string{"exo/harness"},
	},
}

// clientSide are the exo packages a client may link: the protocol, the daemon's client with
// its wire constants, the relay of command lines and the runtime folder's rules (both
// standard-library-only, the thin client's, as is its copy of the help texts), the app with its
// views and themes, and the sanitizer the views share with the sandbox.
var clientSide = []string{
	"exo/harness/api", "exo/harness/daemon/client", "exo/harness/daemon/wire", "exo/harness/relay", "exo/harness/rundir",
	"exo/app", "exo/app/thin", "exo/app/thin/help", "exo/views", "exo/views/plaintext", "exo/themes", "exo/themes/termsafe",
}

// rooms lists the harness's rooms but those named.
func rooms(but ...string) []string {
	var out []string
	for _, r := range []string{"eventlog", "sealed", "models", "sessions", "runtimes", "workspaces"} {
		if !slices.Contains(but, r) {
			out = append(out, "exo/harness/"+r)
		}
	}
	return out
}

func TestLayering(t *testing.T) {
	pkgs := list(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			if r.skip != "" {
				t.Skip(r.skip)
			}
			for _, root := range slices.Concat(r.from, r.not, r.notExact, r.only) {
				if _, ok := pkgs[root]; !ok {
					t.Fatalf("the rule names %s, which go list does not list", root)
				}
			}
			bound := 0
			for _, p := range pkgs {
				if !under(p.ImportPath, r.from...) || r.fromExact && !slices.Contains(r.from, p.ImportPath) {
					continue
				}
				bound++
				for _, d := range p.Deps {
					if r.breaks(d, pkgs[d]) {
						t.Errorf("%s imports %s: %s", p.ImportPath, d, strings.Join(chain(pkgs, p.ImportPath, d), " → "))
					}
				}
			}
			if bound == 0 {
				t.Fatalf("no package is under %v", r.from)
			}
		})
	}
}

// TestRuleCatchesABreak checks the check itself on a made-up listing: a views package that
// reaches store through a package between them breaks the views rule, and the chain is named.
func TestRuleCatchesABreak(t *testing.T) {
	pkgs := map[string]*pkg{
		"exo/views/x": {ImportPath: "exo/views/x", Imports: []string{"exo/themes"}, Deps: []string{"exo/themes", "exo/store", "fmt"}},
		"exo/themes":  {ImportPath: "exo/themes", Imports: []string{"exo/store", "fmt"}, Deps: []string{"exo/store", "fmt"}},
		"exo/store":   {ImportPath: "exo/store", Imports: []string{"fmt"}, Deps: []string{"fmt"}},
		"fmt":         {ImportPath: "fmt", Standard: true},
	}
	views, api := rules[0], rule{from: []string{"exo/views"}, notExo: true}
	if !views.breaks("exo/store", pkgs["exo/store"]) || views.breaks("exo/themes", pkgs["exo/themes"]) {
		t.Fatal("the views rule does not tell store from themes")
	}
	if !api.breaks("exo/themes", pkgs["exo/themes"]) || api.breaks("fmt", pkgs["fmt"]) || api.breaks("exo/views/y", nil) {
		t.Fatal("the leaf rule does not tell exo and third-party packages from the standard library and its own")
	}
	if !api.breaks("github.com/x/y", &pkg{ImportPath: "github.com/x/y"}) {
		t.Fatal("the leaf rule lets a third-party module through")
	}
	exact := rule{from: []string{"exo/harness/sessions"}, notExact: []string{"exo/harness"}}
	if !exact.breaks("exo/harness", nil) || exact.breaks("exo/harness/api", nil) {
		t.Fatal("an exact rule does not tell the harness package from the packages below it")
	}
	cli := rule{from: []string{"exo/app/cli"}, fromExact: true, only: []string{"exo/harness/api"}}
	if !cli.breaks("exo/harness", nil) || !cli.breaks("exo/harness/api/x", nil) || cli.breaks("exo/harness/api", nil) || cli.breaks("fmt", pkgs["fmt"]) || cli.breaks("exo/app/cli", nil) {
		t.Fatal("an only rule does not tell the packages it allows from the other exo packages")
	}
	if got := strings.Join(chain(pkgs, "exo/views/x", "exo/store"), " → "); got != "exo/views/x → exo/themes → exo/store" {
		t.Fatalf("chain %q", got)
	}
}

// breaks reports whether depending on d (listed as p, nil when unlisted) breaks r.
func (r rule) breaks(d string, p *pkg) bool {
	if r.notExo {
		if under(d, r.from...) {
			return false
		}
		return p == nil || !p.Standard
	}
	if r.only != nil {
		return (d == "exo" || strings.HasPrefix(d, "exo/")) && !slices.Contains(r.from, d) && !slices.Contains(r.only, d)
	}
	return under(d, r.not...) && !under(d, r.except...) || slices.Contains(r.notExact, d)
}

// under reports whether path is one of roots or a package below one.
func under(path string, roots ...string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, r+"/") {
			return true
		}
	}
	return false
}

// chain is one import path from from to to, through direct imports (a shortest one).
func chain(pkgs map[string]*pkg, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var out []string
			for at := to; at != ""; at = prev[at] {
				out = append([]string{at}, out...)
			}
			return out
		}
		if p := pkgs[cur]; p != nil {
			for _, next := range p.Imports {
				if _, seen := prev[next]; !seen {
					prev[next] = cur
					queue = append(queue, next)
				}
			}
		}
	}
	return []string{from, "…", to}
}

// list runs `go list -deps -json` over the module's packages (not their tests) and returns every
// package listed, the standard library's included, by import path.
func list(t *testing.T) map[string]*pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Standard,Imports,Deps", "exo/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]*pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list's output: %v", err)
		}
		pkgs[p.ImportPath] = &p
	}
	return pkgs
}
