package cli

import (
	"fmt"
	"io"

	"exo/harness/api"
	"exo/harness/daemon/client"
	"exo/views/plaintext"
)

// doctorDamaged explains a database that exo refused to open, and what to do about it.
func (e *env) doctorDamaged(openErr error) error {
	home := e.home
	if home == "" {
		var err error
		if home, err = client.HomeDir(); err != nil {
			return err
		}
	}
	if e.opts.Local.Diagnose == nil {
		return errNoLocal
	}
	d := e.opts.Local.Diagnose(home)
	fmt.Fprintf(e.stdout, "EXO_HOME\t%s\n", home)
	fmt.Fprintf(e.stdout, "database\t%s (%d bytes)\n", d.Path, d.Size)
	fmt.Fprintf(e.stdout, "problem\t%s\n", firstNonEmpty(d.Problem, d.Verdict, openErr.Error()))
	fmt.Fprint(e.stdout, damageAdvice(home))
	return failf(ExitFailure, "the database is damaged: exo refuses it so nothing more is lost")
}

// damageAdvice says how to get going again after damage.
func damageAdvice(home string) string {
	return fmt.Sprintf(`
exo will not write into a damaged database. To carry on:
  - restore a backup: copy it over %[1]s/exo.db (`+"`exo verify`"+` then checks it and lifts the refusal);
  - or start afresh: move %[1]s/exo.db (and %[1]s/exo.db.damaged) aside; its sessions are then gone.
`, home)
}

// firstNonEmpty returns the first non-empty string.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// printRecovery says what opening the store put back in order after a process that died.
func printRecovery(w io.Writer, r *api.RecoveryReport) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nrecovered after a crash: %s completed, %s removed, %s marked interrupted\n",
		plaintext.Plural(len(r.Completed), "operation"), plaintext.Plural(len(r.RolledBack), "unfinished fork copy"), plaintext.Plural(len(r.Interrupted), "turn"))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  could not recover: %s\n", p)
	}
}
