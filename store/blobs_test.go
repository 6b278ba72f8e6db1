package store

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"exo/store/etcdtest"
)

// TestEtcdSharedBlobs: two daemons on one cluster with one shared blob folder read each other's
// artifacts; with the local default, the other daemon sees the metadata and is told the content
// is not on its machine. A daemon cleaning up after a crash removes only its own temporary files.
func TestEtcdSharedBlobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	c := etcdtest.Start(t, 1, etcdtest.Options{})
	shared := t.TempDir()
	open := func(ns, node, blobs string) *Store {
		s, err := OpenEtcd(t.TempDir(), EtcdConfig{Endpoints: c.Endpoints, Namespace: ns, Node: node, BlobDir: blobs}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a := open("blobs", "a", shared)
	pending, err := a.CreateArtifact("in progress") // a's blob being written when b starts
	if err != nil {
		t.Fatal(err)
	}
	pending.Write([]byte("half"))
	b := open("blobs", "b", shared)
	if !a.Blobs().Shared() || !strings.Contains(a.Blobs().Where(), shared) {
		t.Fatalf("blobs of a: %s", a.Blobs().Where())
	}
	art, err := a.PutArtifact("report.txt", strings.NewReader("written on a"))
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := b.OpenArtifact(art.ID[:8])
	if err != nil {
		t.Fatalf("b opens a's artifact: %v", err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != "written on a" {
		t.Fatalf("b read %q", got)
	}
	if _, err := pending.Commit(); err != nil {
		t.Fatalf("a's blob in progress was removed when b started: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(shared, "tmp", "*", "blob-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}

	la, lb := open("local", "a", ""), open("local", "b", "")
	if la.Blobs().Shared() {
		t.Fatal("EXO_HOME/artifacts is not shared")
	}
	art, err = la.PutArtifact("report.txt", strings.NewReader("only on a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lb.ArtifactInfo(art.ID); err != nil {
		t.Fatalf("b reads the metadata: %v", err)
	}
	_, _, err = lb.OpenArtifact(art.ID)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "this machine's") {
		t.Fatalf("b opens a's local artifact: %v", err)
	}
	if _, err := os.Stat(filepath.Join(la.Home(), "artifacts", art.ID[:2], art.ID)); err != nil {
		t.Fatalf("the local default is EXO_HOME/artifacts: %v", err)
	}
}
