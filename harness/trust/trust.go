package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// FileName is the trust store in EXO_HOME.
const FileName = "trust.json"

// ProjectFiles are the files of a project whose contents run code on the host, relative to the
// project's root.
var ProjectFiles = []string{".mcp.json", filepath.Join(".exo", "settings.json"), filepath.Join(".exo", "settings.local.json")}

// Errors of Check.
var (
	// ErrUntrusted is a project file the user never trusted.
	ErrUntrusted = errors.New("not trusted")
	// ErrChanged is a project file that changed since the user trusted it.
	ErrChanged = errors.New("changed since it was trusted")
)

// Store is the trust store of one EXO_HOME. Safe for concurrent use, also across processes
// (writes take a file lock and replace the file atomically).
type Store struct {
	path string
	mu   sync.Mutex
}

// record is trust.json.
type record struct {
	Version  int                `json:"version"`
	Projects map[string]project `json:"projects"`
}

// project is what the user trusted in one project.
type project struct {
	// Files maps a project file (relative path) to the SHA-256 of the contents trusted.
	Files   map[string]string `json:"files"`
	Trusted time.Time         `json:"trusted"`
}

// Open returns the store of EXO_HOME home (the file is created on the first Trust).
func Open(home string) *Store { return &Store{path: filepath.Join(home, FileName)} }

// Hash is the SHA-256 of a file's contents, as the store keeps it.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Key is a project's key: its absolute real path.
func Key(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return real, nil
}

// Check reports whether data, the contents of project file rel of project, is trusted: nil, or
// an error wrapping ErrUntrusted or ErrChanged that says how to trust it.
func (s *Store) Check(projectDir, rel string, data []byte) error {
	key, err := Key(projectDir)
	if err != nil {
		return err
	}
	r, err := s.read()
	if err != nil {
		return err
	}
	want, ok := r.Projects[key].Files[filepath.ToSlash(rel)]
	switch {
	case ok && want == Hash(data):
		return nil
	case ok:
		return fmt.Errorf("%s %w: review it with 'exo trust --show' in %s, then 'exo trust'", rel, ErrChanged, key)
	}
	return fmt.Errorf("%s is %w: review it with 'exo trust --show' in %s, then 'exo trust'", rel, ErrUntrusted, key)
}

// Stamp changes whenever the store changes (callers cache what they checked under it).
func (s *Store) Stamp() string {
	fi, err := os.Stat(s.path)
	if err != nil {
		return "none"
	}
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}

// Trusted returns the hashes trusted for a project (nil when none), by relative path.
func (s *Store) Trusted(projectDir string) (map[string]string, error) {
	key, err := Key(projectDir)
	if err != nil {
		return nil, err
	}
	r, err := s.read()
	if err != nil {
		return nil, err
	}
	return r.Projects[key].Files, nil
}

// Trust records files (relative path → SHA-256 of the contents the user reviewed) as trusted
// for a project, replacing what was trusted there before; no files revokes the project's trust.
func (s *Store) Trust(projectDir string, files map[string]string) error {
	key, err := Key(projectDir)
	if err != nil {
		return err
	}
	return s.update(func(r *record) {
		if len(files) == 0 {
			delete(r.Projects, key)
			return
		}
		p := project{Files: map[string]string{}, Trusted: time.Now().UTC()}
		for rel, h := range files {
			p.Files[filepath.ToSlash(rel)] = h
		}
		r.Projects[key] = p
	})
}

// Projects lists the trusted projects' keys, sorted.
func (s *Store) Projects() ([]string, error) {
	r, err := s.read()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(r.Projects))
	for k := range r.Projects {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// read loads the store; a missing file is an empty store, a damaged one an error (nothing is
// trusted while it stands).
func (s *Store) read() (*record, error) {
	r := &record{Version: 1, Projects: map[string]project{}}
	b, err := os.ReadFile(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trust store: %w", err)
	}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("the trust store %s is damaged (%v): nothing in projects is trusted until it is removed", s.path, err)
	}
	if r.Projects == nil {
		r.Projects = map[string]project{}
	}
	return r, nil
}

// update changes the store under a lock and replaces the file atomically (0600).
func (s *Store) update(fn func(*record)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	lock, err := os.OpenFile(s.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("trust store: lock: %w", err)
	}
	r, err := s.read()
	if err != nil {
		return err
	}
	fn(r)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	tmp := s.path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}
