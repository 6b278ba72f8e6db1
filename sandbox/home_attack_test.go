package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// homeMarker is the content of the fake exo home's key and database that probes hunt for.
const homeMarker = "EXO-HOME-SECRET-41c9"

// homeLayout is one place of exo's home relative to the workspace.
type homeLayout struct {
	name            string
	home, ws, tmp   string
	homeFiles       []string
	relFromWS       string // home spelled relative to the workspace
	workspaceInside bool
}

// homeLayouts builds the layouts probed: home under a fake $HOME outside /tmp, home beside
// the workspace in its parent, and a fork's workspace and tmp dir inside home.
func homeLayouts(t *testing.T) []homeLayout {
	var out []homeLayout
	mk := func(name, home, ws, tmp string) {
		for _, d := range []string{home, ws, tmp} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		files := []string{"secret.key", "exo.db"}
		for _, f := range files {
			os.WriteFile(filepath.Join(home, f), []byte(homeMarker+" "+f+"\n"), 0o600)
		}
		ws, _ = filepath.EvalSymlinks(ws)
		home, _ = filepath.EvalSymlinks(home)
		rel, _ := filepath.Rel(ws, home)
		out = append(out, homeLayout{name: name, home: home, ws: ws, tmp: tmp, homeFiles: files, relFromWS: rel,
			workspaceInside: strings.HasPrefix(ws, home+"/")})
	}
	fakeHome := outsideDir(t)
	mk("home-outside-tmp", filepath.Join(fakeHome, ".exo"), filepath.Join(outsideDir(t), "project"), filepath.Join(fakeHome, ".exo", "tmp", "s1"))
	parent := outsideDir(t)
	mk("home-in-workspace-parent", filepath.Join(parent, ".exo"), filepath.Join(parent, "project"), filepath.Join(parent, ".exo", "tmp", "s2"))
	forkHome := outsideDir(t)
	mk("workspace-inside-home", filepath.Join(forkHome, ".exo"), filepath.Join(forkHome, ".exo", "workspaces", "f1"), filepath.Join(forkHome, ".exo", "tmp", "f1"))
	return out
}

// homeProbes are the commands an agent would try to read exo's key or database by another
// spelling; %[1]s is home, %[2]s the file, %[3]s exo's pid, %[4]s home relative to the workspace.
var homeProbes = []string{
	`cat %[1]s/%[2]s`,
	`cat /%[1]s/%[2]s`,
	`cat %[1]s/./%[2]s`,
	`cat /.%[1]s/../%[4]s/%[2]s`,
	`cat /proc/self/root%[1]s/%[2]s`,
	`cat /proc/1/root%[1]s/%[2]s`,
	`cat /proc/%[3]s/root%[1]s/%[2]s`,
	`cat /proc/%[3]s/cwd/%[2]s`,
	`for f in /proc/%[3]s/fd/*; do cat "$f"; done`,
	`cat %[4]s/%[2]s`,
	`cat ./%[4]s/../%[4]s/%[2]s`,
	`cd / && cat ."%[1]s"/%[2]s`,
	`ln -sfn %[1]s homelink && cat homelink/%[2]s`,
	`ln -sfn %[1]s/%[2]s filelink && cat filelink`,
	`ln -sfn %[4]s rellink && cat rellink/%[2]s`,
	`ln %[1]s/%[2]s hardlink 2>/dev/null; cat hardlink`,
	`ls -la %[1]s; cat %[1]s/*`,
	`cat $TMPDIR/../../%[2]s $TMPDIR/../%[2]s`,
	`umount -l %[1]s 2>/dev/null; cat %[1]s/%[2]s`,
	`unshare -Urm sh -c 'umount -l %[1]s; cat %[1]s/%[2]s'`,
	`unshare -Urm sh -c 'mount --bind / /mnt && cat /mnt%[1]s/%[2]s'`,
	`grep -a -r -h "EXO-HOME-SEC[R]ET" /proc/self/fd/ %[1]s 2>/dev/null`,
}

// TestHomeUnreachable: from a sandboxed command, every spelling of exo's home (absolute,
// doubled slashes, dots, /proc roots and exo's own cwd and open files, links and hard links
// made in the workspace, .. chains, nested namespaces undoing the cover) fails to read its key
// and database, wherever home lies relative to the workspace, in every confinement mode.
func TestHomeUnreachable(t *testing.T) {
	if !testCaps().MountNS {
		t.Skip("no mount namespaces: exo's home cannot be hidden on this host (Enforcement says so)")
	}
	tried, held := 0, 0
	for _, mode := range fsModes(t) {
		for _, l := range homeLayouts(t) {
			t.Run(string(mode)+"/"+l.name, func(t *testing.T) {
				cfg := testConfig(t)
				cfg.Workspace, cfg.TmpDir, cfg.Filesystem, cfg.Hide = l.ws, l.tmp, mode, []string{l.home}
				t.Chdir(l.home) // exo's cwd, reachable as /proc/<exo pid>/cwd without a PID namespace.
				var open []*os.File
				for _, f := range l.homeFiles {
					fh, err := os.Open(filepath.Join(l.home, f)) // exo holds the database open.
					if err != nil {
						t.Fatal(err)
					}
					open = append(open, fh)
				}
				defer func() {
					for _, f := range open {
						f.Close()
					}
				}()
				sh := newTestShell(t, cfg)
				if !sh.Enforcement().HomeHidden {
					t.Fatalf("enforcement: %s", sh.Enforcement())
				}
				for _, p := range homeProbes {
					for _, f := range l.homeFiles {
						cmd := fmt.Sprintf(p, l.home, f, fmt.Sprint(os.Getpid()), l.relFromWS)
						r := run(t, sh, "("+cmd+"); true", RunOptions{})
						tried++
						if strings.Contains(r.Output, homeMarker) {
							t.Errorf("%s read exo's %s: %q", cmd, f, r.Output)
							continue
						}
						held++
					}
				}
				if r := run(t, sh, "echo ok > inside.txt && cat inside.txt && cat $TMPDIR/../"+filepath.Base(l.tmp)+"/../"+filepath.Base(l.tmp)+"/.exo-shell/cmd.sh >/dev/null && echo tmp-ok", RunOptions{}); !strings.Contains(r.Output, "ok\ntmp-ok") {
					t.Fatalf("the workspace or tmp dir did not show through the cover: %q", r.Output)
				}
			})
		}
	}
	t.Logf("exo's home: %d probes tried, %d held", tried, held)
}

// TestHomeProbesControl is the control: without Hide (as before), the plain probe and a link
// made in the workspace read exo's key, so TestHomeUnreachable can fail.
func TestHomeProbesControl(t *testing.T) {
	l := homeLayouts(t)[0]
	cfg := testConfig(t)
	cfg.Workspace, cfg.TmpDir = l.ws, l.tmp
	sh := newTestShell(t, cfg)
	for _, p := range []string{homeProbes[0], homeProbes[12]} {
		cmd := fmt.Sprintf(p, l.home, "secret.key", "0", l.relFromWS)
		if r := run(t, sh, "("+cmd+"); true", RunOptions{}); !strings.Contains(r.Output, homeMarker) {
			t.Fatalf("control probe %s did not read the key: %q", cmd, r.Output)
		}
	}
}
