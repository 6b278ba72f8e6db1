package trust

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A file is untrusted until trusted as it is, untrusted again once it changes, trusted through
// a symbolic link to the same folder, not in another folder, and a revoke withdraws it.
func TestTrustFollowsContentAndRealPath(t *testing.T) {
	home, proj, other := t.TempDir(), t.TempDir(), t.TempDir()
	s := Open(home)
	data := []byte(`{"mcpServers":{"x":{"command":"evil"}}}`)
	if err := s.Check(proj, ".mcp.json", data); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("never trusted: %v", err)
	}
	stamp := s.Stamp()
	if err := s.Trust(proj, map[string]string{".mcp.json": Hash(data)}); err != nil {
		t.Fatal(err)
	}
	if s.Stamp() == stamp {
		t.Fatal("the stamp did not change with the store")
	}
	if err := s.Check(proj, ".mcp.json", data); err != nil {
		t.Fatalf("trusted: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(proj, link)
	if err := s.Check(link, ".mcp.json", data); err != nil {
		t.Fatalf("through a link to the project: %v", err)
	}
	if err := s.Check(other, ".mcp.json", data); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("another folder with the same file: %v", err)
	}
	if err := s.Check(proj, ".mcp.json", append(data, ' ')); !errors.Is(err, ErrChanged) {
		t.Fatalf("changed: %v", err)
	}
	if err := s.Check(proj, ".exo/settings.json", data); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("another file: %v", err)
	}
	if fi, _ := os.Stat(filepath.Join(home, FileName)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("trust.json mode %v", fi.Mode())
	}
	if err := s.Trust(proj, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(proj, ".mcp.json", data); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("revoked: %v", err)
	}
}

// A damaged store trusts nothing and says so; a missing project folder is an error.
func TestDamagedStoreTrustsNothing(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	s := Open(home)
	data := []byte("{}")
	if err := s.Trust(proj, map[string]string{".mcp.json": Hash(data)}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, FileName), []byte(`{"projects": {`), 0o600)
	err := s.Check(proj, ".mcp.json", data)
	if err == nil || errors.Is(err, ErrUntrusted) {
		t.Fatalf("damaged store: %v", err)
	}
	if err := s.Trust(proj, map[string]string{".mcp.json": Hash(data)}); err == nil {
		t.Fatal("a damaged store was overwritten")
	}
	if err := s.Check(filepath.Join(proj, "missing"), ".mcp.json", data); err == nil {
		t.Fatal("a missing folder was accepted")
	}
}
