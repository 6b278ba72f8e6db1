package cli

import (
	"fmt"
	"io"
	"reflect"
	"text/tabwriter"
	"time"

	"exo/views/plaintext"
)

// writeJSON prints v as indented JSON; an empty list prints as [] (never null). &, < and >
// print as themselves (see plaintext.WriteJSON).
func writeJSON(w io.Writer, v any) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.IsNil() {
		v = []struct{}{}
	}
	return plaintext.WriteJSON(w, v, "  ")
}

// writeJSONLine prints v as one compact JSON line, &, < and > as themselves.
func writeJSONLine(w io.Writer, v any) error {
	return plaintext.WriteJSON(w, v, "")
}

// table returns a tab writer for aligned columns.
func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// ago renders a time relative to now, compactly.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02")
}
