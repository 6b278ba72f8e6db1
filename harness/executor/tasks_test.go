package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"exo/harness"
	"exo/harness/provider/providertest"
)

// chatSession points a session at a local Chat Completions server playing replies in order.
func chatSession(t *testing.T, replies ...providertest.ChatReply) (*harness.Harness, *harness.Session, *providertest.ScriptedChat) {
	t.Helper()
	h, s, _ := setup(t, "demo.yaml")
	srv := providertest.NewScriptedChat(replies...)
	t.Cleanup(srv.Close)
	if _, err := h.RegisterModel(harness.ModelSpec{Name: "chat", Provider: "openai-compatible", ModelID: "local", BaseURL: srv.BaseURL(), ContextWindow: 32000}); err != nil {
		t.Fatal(err)
	}
	s, err := h.UpdateSession(s.ID, func(s *harness.Session) error {
		s.Settings = map[string]string{"model": "chat"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h, s, srv
}

func TestBackgroundTaskFinishesWhileTheAgentWorks(t *testing.T) {
	// The foreground command runs until the test has seen the task's completion recorded (it
	// then drops a file the command waits for): the completion comes while the command runs
	// however long the task takes to start and end, not only when 0.2s beat 1.5s.
	h, s, srv := chatSession(t,
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"sleep 0.2; echo bg-finished","background":true}`}}},
		providertest.ChatReply{Text: "Meanwhile I keep working.", ToolCalls: []providertest.ChatToolCall{{ID: "c2", Name: "bash", Args: `{"command":"until [ -e task-recorded ]; do sleep 0.05; done; echo foreground-done","timeout_s":60}`}}},
		providertest.ChatReply{Text: "Both are done."},
	)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			evs, _ := h.Events(s.ID, 0, 0)
			for _, e := range evs {
				if e.Type == harness.TypeTaskCompleted {
					os.WriteFile(filepath.Join(s.Workspace, "task-recorded"), nil, 0o644)
					return
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	x := New(h, Options{Headless: true})
	res, err := x.Prompt(context.Background(), s.ID, "run the slow build in the background and keep working", "test")
	if err != nil || res.Failure != "" || res.Steps != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "finished: exit 0") || !strings.Contains(last, "bg-finished") || !strings.Contains(last, "foreground-done") {
		t.Fatalf("the third request does not carry the task's completion:\n%s", last)
	}
	// The completion came while the foreground command ran: it is in the log before its result.
	evs, _ := h.Events(s.ID, 0, 0)
	var taskSeq, fgSeq uint64
	for _, e := range evs {
		p, _ := harness.Decode(e)
		switch p := p.(type) {
		case *harness.TaskCompleted:
			taskSeq = e.Seq
		case *harness.ToolCompleted:
			if p.CallID == "c2" {
				fgSeq = e.Seq
			}
		}
	}
	if taskSeq == 0 || fgSeq == 0 || taskSeq > fgSeq {
		t.Fatalf("task.completed @%d, foreground result @%d", taskSeq, fgSeq)
	}
}

func TestIdleSessionWakesWhenATaskCompletes(t *testing.T) {
	h, s, srv := chatSession(t,
		providertest.ChatReply{ToolCalls: []providertest.ChatToolCall{{ID: "c1", Name: "bash", Args: `{"command":"sleep 0.3; echo woke-up","background":true}`}}},
		providertest.ChatReply{Text: "Started; I will look when it ends."},
		providertest.ChatReply{Text: "The task printed woke-up."},
	)
	x := New(h, Options{Headless: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	woke := make(chan Result, 1)
	go x.WatchTasks(ctx, s.ID, func(r Result, err error) {
		if err != nil {
			r.Failure = err.Error()
		}
		woke <- r
	})
	res, err := x.Prompt(context.Background(), s.ID, "start it and tell me when it is done", "test")
	if err != nil || res.Response != "Started; I will look when it ends." {
		t.Fatalf("%+v %v", res, err)
	}
	select {
	case r := <-woke:
		if r.Failure != "" || r.Response != "The task printed woke-up." {
			t.Fatalf("follow-up turn %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the idle session did not wake")
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Body), "woke-up") {
		t.Fatalf("%d requests; the last does not carry the task's output", len(reqs))
	}
	select {
	case r := <-woke:
		t.Fatalf("woke twice: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
}
