package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"exo/harness/api"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"exo/sandbox"
)

// Lock is .exo/policy.lock: the canonical JSON form of a compiled constitution and its sha256.
type Lock struct {
	Format       int             `json:"format"`
	Source       string          `json:"source"`
	SourceSHA256 string          `json:"source_sha256"`
	SHA256       string          `json:"sha256"` // of Policy, canonical JSON
	Policy       json.RawMessage `json:"policy"`
}

// Lock errors. A stale or missing lock wraps ErrGovernanceDrift.
var (
	ErrGovernanceDrift = api.ErrGovernanceDrift
	ErrNoConstitution  = errors.New("no constitution")
)

// LoadConstitution reads and validates dir/.exo/constitution.yaml.
func LoadConstitution(dir string) (*Constitution, []byte, error) {
	src, err := sandbox.ReadWorkspaceFile(dir, ConstitutionPath, maxRulesFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s not found in %s (run 'exo init')", ErrNoConstitution, ConstitutionPath, dir)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read constitution: %w", err)
	}
	c, err := ParseConstitution(filepath.Base(ConstitutionPath), src)
	return c, src, err
}

// Canonical returns the canonical JSON form of a constitution and its sha256 in hex.
func Canonical(c *Constitution) ([]byte, string, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return nil, "", fmt.Errorf("canonical constitution: %w", err)
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:]), nil
}

// Compile validates dir's constitution and writes dir/.exo/policy.lock.
func Compile(dir string) (*Constitution, *Lock, error) {
	c, src, err := LoadConstitution(dir)
	if err != nil {
		return nil, nil, err
	}
	canon, sum, err := Canonical(c)
	if err != nil {
		return nil, nil, err
	}
	srcSum := sha256.Sum256(src)
	l := &Lock{Format: 1, Source: ConstitutionPath, SourceSHA256: hex.EncodeToString(srcSum[:]), SHA256: sum, Policy: canon}
	out, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode lock: %w", err)
	}
	if err := writeAtomic(dir, LockPath, append(out, '\n')); err != nil {
		return nil, nil, err
	}
	return c, l, nil
}

// ReadLock reads dir/.exo/policy.lock and checks that its hash matches its policy.
func ReadLock(dir string) (*Lock, *Constitution, error) {
	raw, err := sandbox.ReadWorkspaceFile(dir, LockPath, maxRulesFile)
	if err != nil {
		return nil, nil, fmt.Errorf("read lock: %w", err)
	}
	var l Lock
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, nil, fmt.Errorf("%s is not a policy lock: %w", LockPath, err)
	}
	var c Constitution
	if err := json.Unmarshal(l.Policy, &c); err != nil {
		return nil, nil, fmt.Errorf("%s: policy: %w", LockPath, err)
	}
	if _, sum, err := Canonical(&c); err != nil || sum != l.SHA256 {
		return nil, nil, fmt.Errorf("%s was edited by hand: its policy does not hash to its sha256", LockPath)
	}
	return &l, &c, nil
}

// VerifyLock checks at session start that dir's constitution is compiled and unchanged since.
// It returns the sealed constitution, or nil and no error when the project has neither a
// constitution nor a lock. A missing, stale or tampered lock wraps ErrGovernanceDrift: the
// session must not start under stale rules unless the user overrides.
func VerifyLock(dir string) (*Constitution, error) {
	_, cerr := os.Stat(filepath.Join(dir, ConstitutionPath))
	_, lerr := os.Stat(filepath.Join(dir, LockPath))
	switch {
	case errors.Is(cerr, fs.ErrNotExist) && errors.Is(lerr, fs.ErrNotExist):
		return nil, nil
	case errors.Is(lerr, fs.ErrNotExist):
		return nil, driftf("%s has never been compiled (no %s)", ConstitutionPath, LockPath)
	case errors.Is(cerr, fs.ErrNotExist):
		return nil, driftf("%s exists but %s is gone", LockPath, ConstitutionPath)
	}
	l, sealed, err := ReadLock(dir)
	if err != nil {
		return nil, driftf("%v", err)
	}
	cur, _, err := LoadConstitution(dir)
	if err != nil {
		return nil, driftf("%s no longer compiles: %v", ConstitutionPath, err)
	}
	if _, sum, err := Canonical(cur); err != nil || sum != l.SHA256 {
		return nil, driftf("%s changed since %s was compiled (lock %.12s, constitution now %.12s)",
			ConstitutionPath, LockPath, l.SHA256, sum)
	}
	return sealed, nil
}

// driftf builds a governance drift error that says what to do.
func driftf(format string, a ...any) error {
	return fmt.Errorf("%w: %s; run 'exo compile' to review and seal the rules",
		ErrGovernanceDrift, fmt.Sprintf(format, a...))
}

// maxRulesFile bounds the constitution and the lock read from a workspace.
const maxRulesFile = 4 << 20

// writeAtomic writes dir/rel through a temporary file and a rename, beneath dir without
// following links: the agent may have made .exo a link to somewhere outside.
func writeAtomic(dir, rel string, data []byte) error {
	d, err := sandbox.OpenDir(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	defer d.Close()
	if err := d.WriteFile(rel, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	return nil
}
