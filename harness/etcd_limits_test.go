package harness

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"exo/harness/eventlog"
	"exo/store"
	"exo/store/etcdtest"
)

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// bigTurn is a turn whose answer is about n bytes of text.
func bigTurn(i, n int) []store.Record {
	recs := turn(i)
	recs[len(recs)-1] = MustRecord(TypeModelCompleted, ExecutorActor("default"), ModelCompleted{Model: "scripted",
		Text: fmt.Sprintf("Answer %d: %s", i, strings.Repeat("the slow path rebuilds the prompt view. ", n/40)), StopReason: "end_turn"})
	return recs
}

// TestEtcdLimitsLongSession runs a session whose projection outgrows the cluster's request
// limit (64 KiB): its checkpoints are stored in parts and opening it restores one plus the
// tail; a batch bigger than one request is appended in several; a record bigger than any
// request is refused with ErrTooLarge; and a store URL that promises more than the cluster
// takes makes a checkpoint fail with a log line while appends go on.
func TestEtcdLimitsLongSession(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd server")
	}
	t.Parallel()
	const limit = 64 << 10
	c := etcdtest.Start(t, 1, etcdtest.Options{MaxRequestBytes: limit})
	var logs syncBuffer
	url := fmt.Sprintf("etcd://%s/limits?node=a&max-request-bytes=%d", c.Endpoints[0], limit)
	h := openTest(t, Options{CheckpointEvery: 16, Store: url, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	s, err := h.NewSession(NewSessionOptions{Name: "long", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	h.State(s.ID) // cached: appends checkpoint as they go
	for i := range 40 {
		if _, err := h.Append(s.ID, bigTurn(i, 4<<10)...); err != nil {
			t.Fatal(err)
		}
	}
	// One append of 12 turns, about 150 KiB: more than one request carries.
	var batch []store.Record
	for i := range 12 {
		batch = append(batch, bigTurn(100+i, 12<<10)...)
	}
	evs, err := h.Append(s.ID, batch...)
	if err != nil || len(evs) != len(batch) {
		t.Fatalf("append of %d records over several requests: %d %v", len(batch), len(evs), err)
	}
	st, _ := h.State(s.ID)
	if size := len(eventlog.EncodeState(st)); size <= limit {
		t.Fatalf("the projection is only %d bytes: the test needs it above the limit", size)
	}
	var at uint64
	err = h.st.View(func(tx *store.Tx) error {
		var ok bool
		at, _, ok, err = tx.LatestCheckpoint(eventlog.SessionProjection, s.Branch, 0)
		if !ok && err == nil {
			err = errors.New("no checkpoint")
		}
		return err
	})
	if err != nil || st.Head-at >= 16+uint64(len(batch)) {
		t.Fatalf("newest checkpoint at %d of %d: %v\n%s", at, st.Head, err, logs.String())
	}
	cp, applied, err := h.LoadState(s.Branch, 0, true)
	if err != nil || applied != st.Head-at {
		t.Fatalf("open from the checkpoint applied %d events (checkpoint %d, head %d): %v", applied, at, st.Head, err)
	}
	full, _, _ := h.LoadState(s.Branch, 0, false)
	cp.LastActivity = full.LastActivity
	if !reflect.DeepEqual(cp, full) {
		t.Fatal("checkpoint and tail differ from a full replay")
	}
	if strings.Contains(logs.String(), "checkpoint not stored") {
		t.Fatalf("a checkpoint failed:\n%s", logs.String())
	}
	noise := make([]byte, limit) // incompressible: events may be stored compressed
	rand.Read(noise)
	huge := MustRecord(TypeInvocationReceived, ActorUser, InvocationReceived{Text: base64.StdEncoding.EncodeToString(noise)})
	if _, err := h.Append(s.ID, huge); !errors.Is(err, store.ErrTooLarge) {
		t.Fatalf("a record bigger than a request: %v", err)
	}
	h.Close()

	// The URL says the cluster takes 1 MiB: the checkpoint's parts are refused by the cluster,
	// which is logged; the session goes on.
	url = fmt.Sprintf("etcd://%s/limits?node=a&max-request-bytes=%d", c.Endpoints[0], 1<<20)
	h2 := openTest(t, Options{CheckpointEvery: 16, Store: url, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	h2.State(s.ID)
	for i := range 6 {
		if _, err := h2.Append(s.ID, bigTurn(200+i, 4<<10)...); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(logs.String(), "checkpoint not stored") || !strings.Contains(logs.String(), "branch="+s.Branch) {
		t.Fatalf("no log line for the refused checkpoint:\n%s", logs.String())
	}
}
