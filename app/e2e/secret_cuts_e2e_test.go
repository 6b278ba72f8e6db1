package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/harness/provider/providertest"
)

// cutKey is the sealed secret TestSecretCutsNeverLeave hunts for, in runs of 6 bytes (the
// redactor's MinPartial): a fragment that long anywhere is a leak.
const cutKey = "sk-cuts-PlMoKnJiHuYgTfRdEsWqAzXsCvBnMkLo" // no runs of hex digits: the db is full of hashes

// keyFragments returns the runs of 6 bytes of cutKey found in b.
func keyFragments(b []byte) []string {
	var out []string
	for i := 0; i+6 <= len(cutKey); i++ {
		if bytes.Contains(b, []byte(cutKey[i:i+6])) {
			out = append(out, cutKey[i:i+6])
		}
	}
	return out
}

// TestSecretCutsNeverLeave runs a turn of the real binary whose tools print a sealed secret
// across every cut exo makes to output (the end of the inline head, the start of the inline
// tail, grep's long-line cut) and whose model answer contains it, then searches every byte that
// left: the terminal, each request body sent to the model server, the database file, the
// artifacts and everything else in EXO_HOME but the shadow repository (it holds the workspace's
// own files, which hold the secret).
func TestSecretCutsNeverLeave(t *testing.T) {
	t.Parallel()
	srv := providertest.NewScriptedChat(
		providertest.ChatReply{Text: "Printing.", ToolCalls: []providertest.ChatToolCall{
			{ID: "c1", Name: "bash", Args: `{"command":"head -c 32750 /dev/zero | tr '\\0' a; cat s.txt; head -c 40000 /dev/zero | tr '\\0' b"}`},
			{ID: "c2", Name: "bash", Args: `{"command":"head -c 40000 /dev/zero | tr '\\0' a; cat s.txt; head -c 32750 /dev/zero | tr '\\0' b"}`},
			{ID: "c3", Name: "grep", Args: `{"pattern":"xxx","path":"."}`},
		}},
		providertest.ChatReply{Text: "The key is " + cutKey + ", and that is all."},
	)
	defer srv.Close()
	home, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "s.txt"), []byte(cutKey), 0o600)
	os.WriteFile(filepath.Join(ws, "long.txt"), []byte(strings.Repeat("x", 280)+cutKey+strings.Repeat("y", 100)+"\n"), 0o600)
	env := []string{"CUT_KEY=" + cutKey}
	if _, errs, code := exoEnv(t, home, ws, env, "secret", "set", "key", "--env", "CUT_KEY"); code != 0 {
		t.Fatal(errs)
	}
	if _, errs, code := exoEnv(t, home, ws, nil, "model", "register", "m", "--provider", "openai-compatible", "--base-url", srv.BaseURL(), "--secret", "key"); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := exoEnv(t, home, ws, nil, "run", "print the key")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if f := keyFragments([]byte(out + errs)); len(f) > 0 {
		t.Errorf("the terminal shows %q", f)
	}
	reqs := srv.Requests()
	for i, r := range reqs {
		if f := keyFragments(r.Body); len(f) > 0 {
			t.Errorf("request %d carries %q", i, f)
		}
	}
	if len(reqs) != 2 || !bytes.Contains(reqs[1].Body, []byte("‹secret:key›")) {
		t.Errorf("%d requests; the second does not carry the redacted outputs", len(reqs))
	}
	logOut, _, _ := exoEnv(t, home, ws, nil, "log", "--json", lastSession(t, home))
	if f := keyFragments([]byte(logOut)); len(f) > 0 {
		t.Errorf("exo log shows %q", f)
	}
	filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || strings.Contains(p, "/shadow/") {
			return nil
		}
		b, _ := os.ReadFile(p)
		if f := keyFragments(b); len(f) > 0 {
			t.Errorf("%s keeps %q", p, f)
		}
		return nil
	})
}
