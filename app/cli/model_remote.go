package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"exo/harness/api"
)

// remoteModels prints what the endpoints serve: known ids (limits and prices filled in when
// registered) are marked, and so are the ids already registered.
func (e *env) remoteModels(q api.RemoteQuery, asJSON bool) error {
	return e.withClient(func(ctx context.Context, c api.Client) error {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		res, err := c.RemoteModels(ctx, q)
		if err != nil {
			return err
		}
		ms := res.Models
		if res.Problems != "" {
			fmt.Fprintf(e.stderr, "some endpoints could not be listed: %s\n", res.Problems)
		}
		if asJSON {
			return writeJSON(e.stdout, ms)
		}
		tw := table(e.stdout)
		fmt.Fprintln(tw, "PROVIDER\tBASE URL\tMODEL ID\tCONTEXT\t$IN/M\t$OUT/M\tKNOWN\tREGISTERED AS")
		for _, m := range ms {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Provider, orDash(m.BaseURL), m.ID, tokenCount(m.ContextWindow),
				perMillion(m.PriceIn), perMillion(m.PriceOut), knownMark(m.Known), orDash(strings.Join(m.Registered, ",")))
		}
		return tw.Flush()
	})
}

// tokenCount shows a token count, "-" when unknown.
func tokenCount(n int) string {
	if n <= 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// perMillion shows a price per million tokens, "-" when unknown.
func perMillion(p float64) string {
	if p <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", p)
}

// knownMark shows a flag.
func knownMark(b bool) string {
	if b {
		return "yes"
	}
	return ""
}
