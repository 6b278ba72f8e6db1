package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"exo/harness"
	"exo/harness/executors"
	"exo/harness/mcp"
)

// doctorReport is what `exo doctor` prints.
type doctorReport struct {
	Home          string `json:"home"`
	DB            string `json:"db"`
	Schema        uint64 `json:"schema"`
	DBBytes       int64  `json:"db_bytes"`
	Sessions      int    `json:"sessions"`
	Artifacts     int    `json:"artifacts"`
	ArtifactBytes int64  `json:"artifact_bytes"`
	Models        int    `json:"models"`
	DefaultModel  string `json:"default_model,omitempty"`
	Sandbox       any    `json:"sandbox"`
	Enforced      string `json:"enforced"`
	// MCP is the state of the MCP servers configured for the current directory (each started,
	// asked for its tools and stopped).
	MCP     []mcp.Status `json:"mcp,omitempty"`
	Damaged string       `json:"damaged,omitempty"`
	// Executors says which executors can run here (binary found, version).
	Executors []executors.Info `json:"executors"`
	// Recovered is what this open put back in order after a process that died.
	Recovered *harness.RecoveryReport `json:"recovered,omitempty"`
}

func doctorCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report EXO_HOME, the database, its schema and sizes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := e.withHarness(func(h *harness.Harness) error {
				rep, err := doctor(h)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(e.stdout, rep)
				}
				tw := table(e.stdout)
				fmt.Fprintf(tw, "EXO_HOME\t%s\n", rep.Home)
				fmt.Fprintf(tw, "database\t%s (schema %d, %s)\n", rep.DB, rep.Schema, humanBytes(rep.DBBytes))
				fmt.Fprintf(tw, "sessions\t%d\n", rep.Sessions)
				fmt.Fprintf(tw, "artifacts\t%d (%s)\n", rep.Artifacts, humanBytes(rep.ArtifactBytes))
				fmt.Fprintf(tw, "models\t%d (default: %s)\n", rep.Models, orDash(rep.DefaultModel))
				fmt.Fprintf(tw, "sandbox\t%s\n", rep.Enforced)
				for _, s := range rep.MCP {
					fmt.Fprintf(tw, "mcp %s\t%s\n", s.Name, mcpLine(s))
				}
				for _, x := range rep.Executors {
					fmt.Fprintf(tw, "executor %s\t%s\n", x.Name, executorLine(x))
				}
				tw.Flush()
				fmt.Fprintf(e.stdout, "\nwhat this machine supports:\n%s\n", h.Capabilities())
				printRecovery(e.stdout, rep.Recovered)
				if rep.Damaged != "" {
					fmt.Fprintf(e.stdout, "\ndamaged\t%s\n%s", rep.Damaged, damageAdvice(rep.Home))
					return failf(ExitFailure, "the database is damaged: writes are refused")
				}
				return nil
			})
			if errors.Is(err, harness.ErrCorrupt) && !asJSON {
				return e.doctorDamaged(err)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func doctor(h *harness.Harness) (doctorReport, error) {
	st := h.Store()
	rep := doctorReport{Home: h.Home(), DB: st.Path(), DBBytes: st.Size()}
	if d := h.Damaged(); d != nil {
		rep.Damaged = d.Error()
	}
	if r := h.Recovery(); !r.Empty() {
		rep.Recovered = &r
	}
	var err error
	if rep.Schema, err = st.Schema(); err != nil {
		return rep, err
	}
	all, err := h.Sessions()
	if err != nil {
		return rep, err
	}
	rep.Sessions = len(all)
	rep.Artifacts, rep.ArtifactBytes, err = st.ArtifactStats()
	if err != nil {
		return rep, err
	}
	ms, err := h.Models()
	rep.Models, rep.DefaultModel = len(ms), h.DefaultModelName()
	caps := h.Capabilities()
	rep.Sandbox = caps
	rep.Enforced = harness.DefaultEnforcement(caps).String()
	if err == nil {
		rep.MCP, err = mcpStatus(h, true)
	}
	rep.Executors = executors.Probe()
	return rep, err
}

// executorLine says whether an executor is usable, with its version and binary or the problem.
func executorLine(x executors.Info) string {
	switch {
	case !x.Usable:
		return "not usable: " + x.Problem
	case x.Binary == "":
		return "usable (" + x.Version + ")"
	}
	return "usable: " + x.Version + " (" + x.Binary + ")"
}

// humanBytes renders a byte count with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// orDash returns s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mcpLine is one MCP server's doctor line: state, tools, confinement or error.
func mcpLine(s mcp.Status) string {
	line := fmt.Sprintf("%s %s: %s", s.Transport, s.Scope, stateText(s))
	if s.State == harness.MCPConnected {
		line += fmt.Sprintf(", %d tools, %s", s.Tools, s.Confinement)
	}
	if s.Error != "" {
		line += " — " + s.Error
	}
	return line
}
