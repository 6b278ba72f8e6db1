package executor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/build"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"exo/harness"
	"exo/store"
)

// convTurn is one turn of a realistic conversation: the user's prompt, the model's first
// step (a little text and one tool call), the tool's output and the model's answer.
type convTurn struct {
	Prompt, Lead, Tool, Args, Output, Answer string
	In, Out, Cached                          int
}

// corpus is real text to build conversations from: the lines of code and the sentences of the
// doc comments of Go's own net/http package, so sizes and compressibility are a real repository's.
type corpus struct {
	code      []string
	sentences []string
}

var (
	corpusOnce sync.Once
	goCorpus   corpus
)

// loadCorpus reads the corpus once (the Go toolchain that runs the test ships the sources).
func loadCorpus(tb testing.TB) corpus {
	corpusOnce.Do(func() {
		dir := filepath.Join(build.Default.GOROOT, "src", "net", "http")
		names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		slices.Sort(names)
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := os.Open(n)
			if err != nil {
				continue
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				line := sc.Text()
				goCorpus.code = append(goCorpus.code, line)
				if c, ok := strings.CutPrefix(strings.TrimSpace(line), "// "); ok && len(c) > 20 {
					goCorpus.sentences = append(goCorpus.sentences, c)
				}
			}
			f.Close()
		}
	})
	if len(goCorpus.code) < 1000 {
		tb.Skip("Go's net/http sources are not installed")
	}
	return goCorpus
}

// prose joins n consecutive comment lines from a random place.
func (c corpus) prose(r *rand.Rand, n int) string {
	i := r.IntN(len(c.sentences) - n)
	return strings.Join(c.sentences[i:i+n], " ")
}

// block returns about size bytes of consecutive source lines, numbered as read_file numbers them.
func (c corpus) block(r *rand.Rand, size int) string {
	var b strings.Builder
	start := r.IntN(len(c.code) - 400)
	for i := start; b.Len() < size && i < len(c.code); i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i-start+1, c.code[i])
	}
	return b.String()
}

// outputSize draws a tool output's size: most are small (a listing, an edit's confirmation),
// some a screenful, a few a whole file; light conversations have only small ones.
func outputSize(r *rand.Rand, light bool) int {
	if light {
		return 40 + r.IntN(300)
	}
	switch p := r.IntN(10); {
	case p < 6:
		return 60 + r.IntN(340)
	case p < 9:
		return 400 + r.IntN(1600)
	default:
		return 2000 + r.IntN(6000)
	}
}

// longConversation returns n turns drawn deterministically from the corpus; a light one has
// short prompts, answers and outputs (about 1 KB a turn, as the session issue 15 measured).
func longConversation(tb testing.TB, n int, light bool) []convTurn {
	c := loadCorpus(tb)
	r := rand.New(rand.NewPCG(15, 5000))
	tools := []string{"read_file", "bash", "grep", "edit_file"}
	out := make([]convTurn, n)
	ctx := 4000
	for i := range out {
		tool := tools[r.IntN(len(tools))]
		var args string
		switch tool {
		case "read_file":
			args = fmt.Sprintf(`{"path":"internal/server/handler_%d.go"}`, r.IntN(300))
		case "bash":
			args = fmt.Sprintf(`{"command":"go test ./internal/server/... -run TestHandler%d"}`, r.IntN(300))
		case "grep":
			args = fmt.Sprintf(`{"pattern":"func \\(s \\*Server\\) serve%d","path":"internal"}`, r.IntN(300))
		default:
			args = fmt.Sprintf(`{"path":"internal/server/handler_%d.go","old_string":"return nil","new_string":"return err"}`, r.IntN(300))
		}
		in := ctx + r.IntN(2000)
		ctx = min(ctx+300+r.IntN(600), 150_000)
		out[i] = convTurn{
			Prompt: c.prose(r, 1+r.IntN(3)),
			Lead:   c.prose(r, 1),
			Tool:   tool, Args: args,
			Output: c.block(r, outputSize(r, light)),
			Answer: c.prose(r, 1+r.IntN(2)+4*(1-light01(light))*r.IntN(2)),
			In:     in, Out: 80 + r.IntN(700), Cached: in * 3 / 4,
		}
	}
	return out
}

// turnRecords are the events exo's executor records for one turn.
func (t convTurn) records(i int) []store.Record {
	a := harness.ExecutorActor("default")
	id := fmt.Sprintf("call_%08d", i)
	code := 0
	usage := harness.Usage{Input: t.In, Output: t.Out / 3, Cached: t.Cached}
	return []store.Record{
		harness.MustRecord(harness.TypeInvocationReceived, harness.ActorUser, harness.InvocationReceived{Text: t.Prompt, Source: "tui"}),
		harness.MustRecord(harness.TypeStepStarted, a, harness.StepStarted{Step: 1}),
		harness.MustRecord(harness.TypeModelRequested, a, harness.ModelRequested{Model: "claude-sonnet-4-5", Provider: "anthropic", Step: 1, PromptTokens: t.In, Messages: 2 + 4*i}),
		harness.MustRecord(harness.TypeModelCompleted, a, harness.ModelCompleted{Model: "claude-sonnet-4-5", Text: t.Lead,
			ToolCalls: []harness.ToolCall{{ID: id, Name: t.Tool, Arguments: json.RawMessage(t.Args)}},
			Usage:     usage, Cost: 0.0123, TTFTMs: 640, DurationMs: 2100, StopReason: "tool_use"}),
		harness.MustRecord(harness.TypeToolStarted, harness.ToolActor(t.Tool), harness.ToolStarted{CallID: id, Tool: t.Tool, Args: json.RawMessage(t.Args)}),
		harness.MustRecord(harness.TypeToolCompleted, harness.ToolActor(t.Tool), harness.ToolCompleted{CallID: id, Tool: t.Tool, Output: t.Output, ExitCode: &code, DurationMs: 35}),
		harness.MustRecord(harness.TypeStepStarted, a, harness.StepStarted{Step: 2}),
		harness.MustRecord(harness.TypeModelRequested, a, harness.ModelRequested{Model: "claude-sonnet-4-5", Provider: "anthropic", Step: 2, PromptTokens: t.In + 400, Messages: 4 + 4*i}),
		harness.MustRecord(harness.TypeModelCompleted, a, harness.ModelCompleted{Model: "claude-sonnet-4-5", Text: t.Answer,
			Usage: harness.Usage{Input: t.In + 400, Output: t.Out, Cached: t.In}, Cost: 0.0211, TTFTMs: 710, DurationMs: 5400, StopReason: "end_turn"}),
	}
}

// writeExoSession records the conversation in a new exo home, one commit per event as the
// executor makes them, and returns the database's path once the harness is closed.
func writeExoSession(tb testing.TB, home string, turns []convTurn) string {
	h, err := harness.Open(home, harness.Options{NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := h.NewSession(harness.NewSessionOptions{Name: "long"})
	if err != nil {
		tb.Fatal(err)
	}
	for i, t := range turns {
		for _, rec := range t.records(i) {
			if _, err := h.Append(s.ID, rec); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if _, err := h.State(s.ID); err != nil {
		tb.Fatal(err)
	}
	if err := h.Close(); err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(home, store.DBName)
}

// light01 is 1 for a light conversation.
func light01(light bool) int {
	if light {
		return 1
	}
	return 0
}
