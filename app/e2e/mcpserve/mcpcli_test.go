package mcpserve

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// npmEntry returns the entry script of an npm MCP server installed by .ci/run, skipping when it
// is missing locally and failing when EXO_REQUIRE_NPM (or CI) says it must be there.
func npmEntry(t *testing.T, pkg string) string {
	t.Helper()
	dir := os.Getenv("EXO_TEST_NPM")
	if dir == "" {
		h, _ := os.UserHomeDir()
		dir = filepath.Join(h, ".cache", "exo-ci", "npm")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js")
	_, errEntry := os.Stat(entry)
	_, errNode := exec.LookPath("node")
	if errEntry != nil || errNode != nil {
		if os.Getenv("EXO_REQUIRE_NPM") != "" || os.Getenv("CI") != "" {
			t.Fatalf("node or %s under %s is missing (.ci/run installs them; EXO_REQUIRE_NPM is set): %v %v", pkg, dir, errEntry, errNode)
		}
		t.Skipf("node or %s under %s is missing: run .ci/run once", pkg, dir)
	}
	return entry
}

// TestMCPAddLsRmAndDoctorThroughTheBinary: exo mcp add refuses a sealed secret's raw value
// (nothing written, the value never echoed) and keeps ${secret:NAME} as written; project and
// user entries are listed, started by exo doctor (a working server with its tools and
// confinement, a broken one with its error), and removed by exo mcp rm from the file that has
// them.
func TestMCPAddLsRmAndDoctorThroughTheBinary(t *testing.T) {
	t.Parallel()
	entry := npmEntry(t, "server-everything")
	home, ws, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"XDG_CONFIG_HOME=" + cfg, "TOK=" + secretValue}
	run := func(args ...string) (string, string, int) {
		t.Helper()
		out, errs, code := exoEnv(t, home, ws, env, args...)
		if strings.Contains(out+errs, secretValue) {
			t.Fatalf("exo %v printed the secret's value", args)
		}
		return out, errs, code
	}
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := run(args...)
		if code != 0 {
			t.Fatalf("exo %v: exit %d: %s", args, code, errs)
		}
		return out
	}
	must("secret", "set", "gh", "--env", "TOK")

	_, errs, code := run("mcp", "add", "--scope", "project", "raw", "-e", "TOKEN="+secretValue, "--", "node", entry, "stdio")
	if code == 0 || !strings.Contains(errs, "${secret:NAME}") || !strings.Contains(errs, "‹secret:gh›") {
		t.Fatalf("a raw sealed value was accepted: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(ws, ".mcp.json")); err == nil {
		t.Fatal(".mcp.json was written although the entry was refused")
	}

	must("mcp", "add", "--scope", "project", "every", "-e", "TOKEN=${secret:gh}", "--auto-approve", "echo", "--", "node", entry, "stdio")
	must("mcp", "add", "broken", "--", "/no/such/mcp-server")
	project, _ := os.ReadFile(filepath.Join(ws, ".mcp.json"))
	user, _ := os.ReadFile(filepath.Join(cfg, "exo", "mcp.json"))
	if !strings.Contains(string(project), "${secret:gh}") || !strings.Contains(string(project), `"echo"`) || !strings.Contains(string(user), "/no/such/mcp-server") {
		t.Fatalf("files:\n%s\n%s", project, user)
	}
	must("trust", "--yes")

	var ls []struct{ Name, Scope, State string }
	if err := json.Unmarshal([]byte(must("mcp", "ls", "--json")), &ls); err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Name != "broken" || ls[0].Scope != "user" || ls[1].Name != "every" || ls[1].Scope != "project" {
		t.Fatalf("mcp ls: %+v", ls)
	}

	doc := must("doctor")
	okLine := regexp.MustCompile(`(?m)^mcp every\s+stdio project: connected, \d+ tools, sandboxed`)
	badLine := regexp.MustCompile(`(?m)^mcp broken\s+stdio user: failed — .*mcp-server`)
	if !okLine.MatchString(doc) || !badLine.MatchString(doc) {
		t.Fatalf("doctor's MCP lines:\n%s", doc)
	}

	if out := must("mcp", "rm", "every"); !strings.Contains(out, filepath.Join(ws, ".mcp.json")) {
		t.Fatalf("rm every: %s", out)
	}
	if out := must("mcp", "rm", "broken"); !strings.Contains(out, filepath.Join(cfg, "exo", "mcp.json")) {
		t.Fatalf("rm broken: %s", out)
	}
	if _, errs, code := run("mcp", "rm", "broken"); code == 0 || !strings.Contains(errs, "no MCP server") {
		t.Fatalf("removing a missing server: exit %d: %s", code, errs)
	}
	if doc := must("doctor"); strings.Contains(doc, "\nmcp ") {
		t.Fatalf("doctor still lists servers:\n%s", doc)
	}
}
