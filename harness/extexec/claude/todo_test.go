package claude

import (
	"encoding/json"
	"testing"
)

// TestTodoWriteAnswersToTodoWritePolicy: Claude's TodoWrite is judged as exo's todo_write (a
// tool that changes nothing, so an approval mode of ask lets it run), not by a policy of its
// own name that asks.
func TestTodoWriteAnswersToTodoWritePolicy(t *testing.T) {
	nc := nativeCall("t1", "TodoWrite", json.RawMessage(`{"todos":[{"content":"a","status":"pending","activeForm":"A-ing"}]}`))
	if nc.Policy != "todo_write" || len(nc.Writes)+len(nc.Reads) != 0 || nc.Command != "" {
		t.Fatalf("TodoWrite: %+v", nc)
	}
}
