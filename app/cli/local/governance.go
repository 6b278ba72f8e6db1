package local

import (
	"errors"

	"exo/app/cli"
	"exo/harness/governance"
)

// compileGovernance validates dir's constitution and seals it into its policy lock; a missing
// constitution is a usage error.
func compileGovernance(dir string) (cli.Compiled, error) {
	c, l, err := governance.Compile(dir)
	if errors.Is(err, governance.ErrNoConstitution) {
		return cli.Compiled{}, cli.UsageError(err)
	}
	if err != nil {
		return cli.Compiled{}, err
	}
	return cli.Compiled{Constitution: governance.ConstitutionPath, Lock: governance.LockPath, SHA256: l.SHA256,
		Rules: len(c.Rules), Deny: len(c.Deny), Checks: len(c.Checks)}, nil
}

// initGovernance writes a starter constitution for the project in dir; an existing one is a
// usage error.
func initGovernance(dir string) (cli.Initialized, error) {
	p, err := governance.Init(dir)
	if errors.Is(err, governance.ErrExists) {
		return cli.Initialized{}, cli.UsageError(err)
	}
	if err != nil {
		return cli.Initialized{}, err
	}
	return cli.Initialized{Constitution: governance.ConstitutionPath, Language: p.Language, Test: p.Test,
		Note: p.Note}, nil
}
