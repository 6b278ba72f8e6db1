package extexec

import (
	"encoding/json"
	"errors"
	"sync"
	"time"

	"exo/harness"
	"exo/harness/executor"
	"exo/harness/provider"
)

// Log records what an agent does in one session into exo's log: its model calls (from the
// loopback endpoint) with this executor's actor, on the branch the turn started on, and sums
// them up per turn. Writes go through one ordered queue, so a model call's events are committed
// in order without the agent waiting on the disk; WaitAnswer and Flush wait for them where the
// order with other writers matters. An answer of the conversation is held (see harness.Hold)
// rather than committed on its own: the commit of what it leads to (its tool calls' results, or
// the turn's end) carries it, so that a step costs one durable commit on the agent's path.
type Log struct {
	h        *harness.Harness
	session  string
	actor    string
	spec     harness.ModelSpec
	provider string
	queue    chan logJob
	quit     chan struct{}
	once     sync.Once

	mu       sync.Mutex
	cond     *sync.Cond
	branch   string
	step     int
	sums     Sums
	recorded map[string]bool // tool call ids of recorded model answers
	inflight int
	// mainInflight counts the conversation's calls in flight (see WaitMain); answering those
	// whose answer has not been taken in yet (lastCalls not yet set from it: see begin).
	mainInflight int
	answering    int
	// prompt is the text exo sent the agent this turn; lastCalls the tool calls of the
	// conversation's last answer; turnMain counts the turn's answers on the conversation (see
	// place).
	prompt    string
	lastCalls map[string]bool
	turnMain  int
	// order are the last answer's calls in order; alias maps the ids an agent made up for them,
	// taken and hostTaken the calls resolved for the agent's own tools and exo's (see
	// log_alias.go).
	order            []answerCall
	alias            map[string]string
	taken, hostTaken map[string]bool
	// inTurn is set from BeginTurn to EndTurn: a call outside a turn is beside the conversation.
	inTurn bool
	// thinking, when set, is shown the reasoning of the turn's calls on the conversation as
	// the endpoint decodes it (see Turn.ReasoningFromEndpoint); cleared when the turn ends.
	thinking func(string)

	err    error // the first failed queued write since the last Flush
	closed bool
	// budget checks the session's budgets (nil: none checked); refused is the turn's spent
	// budget, once a call was refused for it; warned the budgets warned about (kind → limit).
	budget  func() (executor.BudgetCheck, error)
	refused error
	warned  map[string]float64
}

// logJob is one queued write: records appended in order (or, with hold set, held for the
// session's next commit, at the latest after hold: see harness.Hold), then after runs.
type logJob struct {
	branch string
	recs   []harness.Record
	hold   time.Duration
	after  func(err error)
}

// Sums add up a turn's model calls: Calls, TTFT and Text those of the conversation, Usage and
// Cost the side calls' too.
type Sums struct {
	Calls     int
	SideCalls int
	Usage     provider.Usage
	Cost      float64
	TTFT      time.Duration // of the turn's first call
	ModelTime time.Duration
	// Text is the last answer's text; Failure the last failed call's message.
	Text    string
	Failure string
	// ToolCalls counts exo's tools the agent called.
	ToolCalls int
	// Overhead is the time the agent waited on exo's endpoint (not on the provider).
	Overhead time.Duration
}

// NewLog returns the recorder of an agent's session; model is the registered model in force.
// Close it when the session's agent stops.
func NewLog(h *harness.Harness, sessionID, executor string, spec harness.ModelSpec) *Log {
	l := &Log{h: h, session: sessionID, actor: harness.ExecutorActor(executor), spec: spec, provider: spec.Provider,
		recorded: map[string]bool{}, queue: make(chan logJob, 256), quit: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	go l.write()
	return l
}

// write commits queued jobs in order; jobs queued meanwhile are committed together in one
// transaction (one fsync), which is what lets an answer's events and the turn's end share one.
func (l *Log) write() {
	for {
		var batch []logJob
		select {
		case j := <-l.queue:
			batch = append(batch, j)
		case <-l.quit:
			return
		}
	more:
		for len(batch) < 64 {
			select {
			case j := <-l.queue:
				batch = append(batch, j)
			default:
				break more
			}
		}
		l.commit(batch)
	}
}

// commit appends a batch, one transaction per run of jobs on the same branch (with whatever the
// session holds first), then runs the jobs' callbacks with the outcome. A held job's records are
// held in their place in the order; a run with no records commits what the session holds.
func (l *Log) commit(batch []logJob) {
	for len(batch) > 0 {
		if j := batch[0]; j.hold > 0 {
			l.h.Hold(l.session, j.branch, j.hold, j.recs...)
			if j.after != nil {
				j.after(nil)
			}
			batch = batch[1:]
			continue
		}
		n := 1
		for n < len(batch) && batch[n].branch == batch[0].branch && batch[n].hold == 0 {
			n++
		}
		var recs []harness.Record
		for _, j := range batch[:n] {
			recs = append(recs, j.recs...)
		}
		var err error
		if len(recs) > 0 {
			_, err = l.h.AppendOn(l.session, batch[0].branch, recs...)
		} else {
			err = l.h.Release(l.session)
		}
		if err != nil {
			l.mu.Lock()
			if l.err == nil {
				l.err = err
			}
			l.mu.Unlock()
		}
		for _, j := range batch[:n] {
			if j.after != nil {
				j.after(err)
			}
		}
		batch = batch[n:]
	}
}

// enqueue queues records for the turn's branch.
func (l *Log) enqueue(after func(error), recs ...harness.Record) {
	l.enqueueJob(logJob{recs: recs, after: after})
}

// enqueueJob queues a job for the turn's branch.
func (l *Log) enqueueJob(j logJob) {
	l.mu.Lock()
	branch, closed := l.branch, l.closed
	l.mu.Unlock()
	j.branch = branch
	after := j.after
	if !closed {
		select {
		case l.queue <- j:
			return
		case <-l.quit:
		}
	}
	if after != nil {
		after(errLogClosed)
	}
}

// errLogClosed means the session's recorder was closed.
var errLogClosed = errors.New("the agent session is closed")

// Close stops the writer once what is queued is written.
func (l *Log) Close() {
	l.once.Do(func() {
		_ = l.Flush()
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		close(l.quit)
	})
}

// Commit commits, in the background, what is queued and what the session holds (records held
// for a step's one commit, or the prompt): the writer then is busy while the agent is not
// waiting on it.
func (l *Log) Commit() { l.enqueue(nil) }

// Flush waits until every queued write is committed (what the session holds included) and
// returns the first that failed since the last Flush.
func (l *Log) Flush() error {
	l.wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.err
	l.err = nil
	return err
}

// wait waits until every queued write is committed.
func (l *Log) wait() {
	done := make(chan struct{})
	l.enqueue(func(error) { close(done) })
	<-done
}

// Actor is the executor's event actor.
func (l *Log) Actor() string { return l.actor }

// Session is the exo session recorded into.
func (l *Log) Session() string { return l.session }

// Spec is the registered model the endpoint forwards to.
func (l *Log) Spec() harness.ModelSpec { return l.spec }

// BeginTurn starts a turn's sums; events go to branch (a rewind meanwhile makes appends fail
// with harness.ErrBranchMoved rather than land on the new branch).
func (l *Log) BeginTurn(branch string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.branch, l.step, l.sums, l.turnMain, l.refused, l.inTurn, l.thinking = branch, 0, Sums{}, 0, nil, true, nil
}

// EndTurn ends the turn: a model call made after it (one an agent makes on its own between
// turns, or a request replayed with the session's token) is recorded beside the conversation,
// never as a step of a turn that is over.
func (l *Log) EndTurn() {
	l.mu.Lock()
	l.inTurn, l.thinking = false, nil
	l.mu.Unlock()
}

// Expect notes the prompt exo sends the agent (the user's, or a Stop hook's message): the model
// call that carries it is the conversation's.
func (l *Log) Expect(prompt string) {
	l.mu.Lock()
	l.prompt = prompt
	l.mu.Unlock()
}

// Sums returns the current turn's sums.
func (l *Log) Sums() Sums {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sums
}

// Append writes records on the turn's branch after everything queued, and waits for them.
func (l *Log) Append(recs ...harness.Record) error {
	errc := make(chan error, 1)
	l.enqueue(func(err error) { errc <- err }, recs...)
	return <-errc
}

// Record is a shorthand for appending one event with the executor's actor.
func (l *Log) Record(typ string, payload any) error {
	return l.Append(harness.MustRecord(typ, l.actor, payload))
}

// AddOverhead adds time the agent waited on exo (answering its requests).
func (l *Log) AddOverhead(d time.Duration) { l.overhead(d) }

// overhead adds time the agent waited on exo.
func (l *Log) overhead(d time.Duration) {
	l.mu.Lock()
	l.sums.Overhead += d
	l.mu.Unlock()
}

// WaitAnswer waits until the model answer that made tool call id is recorded (held in its place
// in the log's order, or committed), so that a tool's events follow the answer that asked for it
// (agents start tools while the answer still streams).
// It returns at once when no model call is in flight, and after timeout at the latest.
func (l *Log) WaitAnswer(id string, timeout time.Duration) {
	stop := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer stop.Stop()
	deadline := time.Now().Add(timeout)
	l.mu.Lock()
	defer l.mu.Unlock()
	for !l.recorded[id] && l.inflight > 0 && time.Now().Before(deadline) {
		l.cond.Wait()
	}
}

// WaitMain waits, at most timeout, until no call on the conversation is in flight: an agent can
// report its turn over as soon as the answer's last event reaches it, before exo's endpoint has
// seen the upstream stream end and queued model.completed; the turn's end waits for it, so the
// answer is recorded before executor.result.
func (l *Log) WaitMain(timeout time.Duration) {
	stop := time.AfterFunc(timeout, func() {
		l.mu.Lock()
		l.cond.Broadcast()
		l.mu.Unlock()
	})
	defer stop.Stop()
	deadline := time.Now().Add(timeout)
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.mainInflight > 0 && time.Now().Before(deadline) {
		l.cond.Wait()
	}
}

// CountTool counts one call of exo's tools in the turn.
func (l *Log) CountTool() {
	l.mu.Lock()
	l.sums.ToolCalls++
	l.mu.Unlock()
}

// rawJSON returns raw when it is a JSON value, else "{}".
func rawJSON(raw []byte) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(raw)
}
