package executor

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// sqlQuote quotes s as an SQL string literal.
func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// crushParts encodes message parts as Crush does: [{"type":…,"data":{…}}].
func crushParts(parts ...any) string {
	b, _ := json.Marshal(parts)
	return string(b)
}

// part is one of Crush's wrapped message parts.
type part struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// crushSQL is the conversation as Crush's app writes it: a session row, then per turn the user
// message, the assistant's message created empty and updated with its text and tool call, the
// tool's result message, the answer (created, then updated), and the session's token totals —
// each statement its own transaction.
func crushSQL(turns []convTurn) string {
	var b strings.Builder
	b.WriteString("INSERT INTO sessions (id, title, updated_at, created_at) VALUES ('5f0c2a52-7a1e-4f7e-9c1d-2b1d0e5c9a11', 'long session', 1764000000000, 1764000000000);\n")
	msg := func(i, k int, role, parts string) {
		fmt.Fprintf(&b, "INSERT INTO messages (id, session_id, role, parts, model, provider, created_at, updated_at, finished_at) VALUES ('%08x-7a1e-4f7e-9c1d-%012x', '5f0c2a52-7a1e-4f7e-9c1d-2b1d0e5c9a11', '%s', %s, 'claude-sonnet-4-5', 'anthropic', %d, %d, %d);\n",
			i, k, role, sqlQuote(parts), 1764000000000+int64(i)*60000, 1764000000000+int64(i)*60000, 1764000000000+int64(i)*60000+5000)
	}
	update := func(i, k int, parts string) {
		fmt.Fprintf(&b, "UPDATE messages SET parts = %s WHERE id = '%08x-7a1e-4f7e-9c1d-%012x';\n", sqlQuote(parts), i, k)
	}
	for i, t := range turns {
		id := fmt.Sprintf("toolu_%020d", i)
		msg(i, 0, "user", crushParts(part{"text", map[string]string{"text": t.Prompt}}))
		msg(i, 1, "assistant", "[]")
		update(i, 1, crushParts(part{"text", map[string]string{"text": t.Lead}},
			part{"tool_call", map[string]any{"id": id, "name": t.Tool, "input": t.Args, "provider_executed": false, "finished": true}},
			part{"finish", map[string]any{"reason": "tool_use", "time": 1764000000 + i*60}}))
		msg(i, 2, "tool", crushParts(part{"tool_result", map[string]any{"tool_call_id": id, "name": t.Tool, "content": t.Output, "data": "", "mime_type": "", "metadata": "", "is_error": false}}))
		msg(i, 3, "assistant", "[]")
		update(i, 3, crushParts(part{"text", map[string]string{"text": t.Answer}},
			part{"finish", map[string]any{"reason": "end_turn", "time": 1764000000 + i*60 + 5}}))
		fmt.Fprintf(&b, "UPDATE sessions SET prompt_tokens = prompt_tokens + %d, completion_tokens = completion_tokens + %d, cost = cost + 0.0334 WHERE id = '5f0c2a52-7a1e-4f7e-9c1d-2b1d0e5c9a11';\n", 2*t.In+400, t.Out+t.Out/3)
	}
	return b.String()
}

// writeCrushSession writes the conversation into Crush's real schema with Crush's pragmas
// (4 KiB pages, WAL, secure_delete) through the sqlite3 shell and returns the database's path
// once the shell has closed it (the WAL checkpointed into it and removed).
func writeCrushSession(tb testing.TB, dir string, turns []convTurn) string {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		tb.Skip("sqlite3 is not installed (apt-get install sqlite3)")
	}
	schema, err := os.ReadFile(filepath.Join("testdata", "crush_schema.sql"))
	if err != nil {
		tb.Fatal(err)
	}
	db := filepath.Join(dir, "crush.db")
	script := "PRAGMA page_size = 4096;\nPRAGMA journal_mode = WAL;\nPRAGMA synchronous = NORMAL;\nPRAGMA secure_delete = ON;\nPRAGMA foreign_keys = ON;\n" +
		string(schema) + crushSQL(turns)
	cmd := exec.Command("sqlite3", "-bail", db)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("sqlite3: %v\n%s", err, out)
	}
	if _, err := os.Stat(db + "-wal"); err == nil {
		tb.Fatalf("sqlite3 left its WAL behind")
	}
	return db
}

// fileMiB is a file's size in MiB.
func fileMiB(tb testing.TB, path string) float64 {
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return float64(fi.Size()) / (1 << 20)
}

// boltUsage describes where an exo database's bytes go: per top-level bucket the bytes of
// pages allocated (nested buckets included) and in use, and the free pages.
func boltUsage(tb testing.TB, path string) string {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var lines []string
	var total int
	db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			st := b.Stats()
			alloc, inuse := st.BranchAlloc+st.LeafAlloc, st.BranchInuse+st.LeafInuse
			total += alloc
			if alloc > 0 {
				lines = append(lines, fmt.Sprintf("  %-12s %7.2f MiB in pages, %7.2f MiB used (%d keys)", name, float64(alloc)/(1<<20), float64(inuse)/(1<<20), st.KeyN))
			}
			return nil
		})
	})
	sort.Strings(lines)
	free := db.Stats().FreePageN * db.Info().PageSize
	lines = append(lines, fmt.Sprintf("  free pages   %7.2f MiB; buckets total %.2f MiB", float64(free)/(1<<20), float64(total)/(1<<20)))
	return strings.Join(lines, "\n")
}

// compareSizes records the same conversation of n turns (9 events each) in exo and in
// Crush's SQLite schema and returns both files' sizes in MiB, and where exo's bytes go.
func compareSizes(tb testing.TB, n int, light bool) (exo, crush float64, usage string) {
	turns := longConversation(tb, n, light)
	dir := tb.TempDir()
	crush = fileMiB(tb, writeCrushSession(tb, dir, turns))
	path := writeExoSession(tb, filepath.Join(dir, "home"), turns)
	return fileMiB(tb, path), crush, boltUsage(tb, path)
}

// conversationKinds are the two conversations sizes are compared on: a realistic one with tool
// outputs up to 8 KB, and a light one of small outputs and short answers.
var conversationKinds = map[string]bool{"realistic": false, "light": true}

// TestStoreSizeNotAboveCrush checks that exo's file is not larger than Crush's SQLite file for
// the same light 300-turn conversation, the harder case for exo (its per-event envelope and
// hash weigh more when events are small); BenchmarkStoreSize measures 5,000 turns of both.
func TestStoreSizeNotAboveCrush(t *testing.T) {
	exo, crush, usage := compareSizes(t, 300, true)
	t.Logf("300 turns: exo %.2f MiB, Crush %.2f MiB\n%s", exo, crush, usage)
	if exo > crush {
		t.Fatalf("exo's store (%.2f MiB) is larger than Crush's (%.2f MiB) for the same session", exo, crush)
	}
}

// BenchmarkStoreSize reports the size of exo's file and of Crush's for the same 5,000-turn
// conversations (45,000 events), exo's written one commit per event as the executor does.
func BenchmarkStoreSize(b *testing.B) {
	for _, name := range []string{"realistic", "light"} {
		b.Run(name, func(b *testing.B) {
			var exo, crush float64
			var usage string
			for b.Loop() {
				exo, crush, usage = compareSizes(b, 5000, conversationKinds[name])
			}
			b.Logf("exo %.2f MiB, Crush %.2f MiB\n%s", exo, crush, usage)
			b.ReportMetric(exo, "exo-MiB")
			b.ReportMetric(crush, "crush-MiB")
		})
	}
}
