package cli

import (
	"fmt"
	"io"
	"strings"

	"exo/harness/api"
	"exo/harness/daemon/client"
	"exo/views/plaintext"
)

// doctorDamaged explains a database that exo refused to open (damaged, or no exo database at
// all), and what to do about it.
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
	if api.HasCode(openErr, api.CodeForeign) {
		// Not exo's file (another kind of file, a directory, a link out of EXO_HOME): the
		// reason the store gave names the file and what it is; nothing in it is exo's to mend.
		fmt.Fprintf(e.stdout, "database\t%s\n", d.Path)
		fmt.Fprintf(e.stdout, "problem\t%s\n", strings.TrimPrefix(openErr.Error(), "the exo daemon could not start: "))
		fmt.Fprint(e.stdout, foreignAdvice(home))
		return failf(ExitFailure, "exo cannot use EXO_HOME's exo.db as it is, and leaves it untouched")
	}
	fmt.Fprintf(e.stdout, "database\t%s (%d bytes)\n", d.Path, d.Size)
	fmt.Fprintf(e.stdout, "problem\t%s\n", firstNonEmpty(d.Problem, d.Verdict, openErr.Error()))
	fmt.Fprint(e.stdout, damageAdvice(home))
	return failf(ExitFailure, "the database is damaged: exo refuses it so nothing more is lost")
}

// foreignAdvice says how to get going again when exo.db is not exo's.
func foreignAdvice(home string) string {
	return fmt.Sprintf(`
exo neither reads nor writes a file it does not recognise. To carry on:
  - if it is exo's database moved or linked elsewhere: put the file itself back at %[1]s/exo.db;
  - or start afresh: move %[1]s/exo.db aside, or set EXO_HOME to another folder.
`, home)
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
