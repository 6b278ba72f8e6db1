package app

import (
	"exo/harness/api"
	"exo/views"
)

// timelineBlock is how many rows the timeline source reads from the log at a time.
const timelineBlock = 256

// timelineSource serves timeline rows of a branch's history by index, reading blocks of events
// from the log only when they become visible, so a 100k-event session costs what 100 does.
type timelineSource struct {
	c         api.Client
	branch    string
	n         int
	points    map[uint64]int
	abandoned bool
	blocks    map[int][]views.TimelineRow
}

// newTimelineSource returns rows 1..head of a branch.
func newTimelineSource(c api.Client, branch string, head uint64, abandoned bool) *timelineSource {
	points, _ := c.BranchPoints(bg, branch)
	return &timelineSource{c: c, branch: branch, n: int(head), points: points, abandoned: abandoned, blocks: map[int][]views.TimelineRow{}}
}

// Len returns the number of events.
func (t *timelineSource) Len() int { return t.n }

// Row returns the row of event i+1.
func (t *timelineSource) Row(i int) views.TimelineRow {
	b := i / timelineBlock
	rows, ok := t.blocks[b]
	if !ok {
		rows = t.load(b)
		if len(t.blocks) > 64 {
			clear(t.blocks)
		}
		t.blocks[b] = rows
	}
	if off := i - b*timelineBlock; off < len(rows) {
		return rows[off]
	}
	return views.TimelineRow{Seq: uint64(i + 1), Summary: "(unreadable)"}
}

// load reads one block of rows from the log.
func (t *timelineSource) load(b int) []views.TimelineRow {
	from := uint64(b*timelineBlock + 1)
	to := min(uint64((b+1)*timelineBlock), uint64(t.n))
	evs, err := t.c.Events(bg, t.branch, from, to)
	if err != nil {
		return []views.TimelineRow{{Seq: from, Type: "error", Summary: err.Error()}}
	}
	rows := make([]views.TimelineRow, len(evs))
	for i, e := range evs {
		rows[i] = t.row(e)
	}
	return rows
}

// row is the timeline row of an event.
func (t *timelineSource) row(e api.Event) views.TimelineRow {
	return views.TimelineRow{Seq: e.Seq, Time: e.Time, Actor: e.Actor, Type: e.Type, Summary: views.LabelLeadingTool(api.Summary(e)),
		Branch: e.Branch, IsBranchPoint: t.points[e.Seq] > 0, Abandoned: t.abandoned}
}

// add extends the source by the next event of its branch, which the watch stream brought: its
// row joins the cached block it belongs to (or starts the next one), so the rows on screen
// are not read again. A block not in the cache is read when it shows, as ever.
func (t *timelineSource) add(e api.Event) {
	if int(e.Seq) != t.n+1 {
		t.grow(e.Seq)
		return
	}
	i := t.n
	b, off := i/timelineBlock, i%timelineBlock
	if rows, ok := t.blocks[b]; ok && len(rows) == off {
		t.blocks[b] = append(rows, t.row(e))
	} else if off == 0 {
		t.blocks[b] = []views.TimelineRow{t.row(e)}
	}
	t.n = int(e.Seq)
}

// grow extends the source to a new head, dropping the cached last block.
func (t *timelineSource) grow(head uint64) {
	if int(head) == t.n {
		return
	}
	delete(t.blocks, (t.n-1)/timelineBlock)
	delete(t.blocks, (int(head)-1)/timelineBlock)
	t.n = int(head)
}
