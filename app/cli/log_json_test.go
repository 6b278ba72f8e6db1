package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"exo/harness/api"
	"exo/views"
)

// eventJSONCases are envelopes and payloads the fast encoder must print exactly as
// views.WriteJSON does, or hand to it.
func eventJSONCases() []api.Event {
	t := time.Date(2026, 11, 28, 23, 1, 2, 345678900, time.UTC)
	var h api.Hash
	for i := range h {
		h[i] = byte(i * 7)
	}
	ev := func(branch, typ, actor, data string) api.Event {
		var raw json.RawMessage
		if data != "\x00nil" {
			raw = json.RawMessage(data)
		}
		return api.Event{Branch: branch, Seq: 18446744073709551615, Type: typ, Time: t, Actor: actor, Data: raw, Hash: h}
	}
	return []api.Event{
		ev("b1", "model.completed", "executor:default", `{"text":"a <b> & c","n":1}`),
		ev("b1", "x", "user", `{"text":"\u003cscript\u003e \u0026 \\u003c"}`),
		ev("b1", "x", "user", "\x00nil"),
		ev("b1", "x", "user", ``),
		ev("b1", "x", "user", `null`),
		ev("b1", "x", "user", `{ "a": 1 }`),
		ev("b1", "x", "user", "{\"a\":\n1}"),
		ev("b1", "x", "user", `{"a":"x y"}`),
		ev("b1", "x", "user", `{"a":"é ü 漢字 🙂"}`),
		ev("b1", "x", "user", "{\"a\":\"\u2028\"}"),
		ev("b1", "x", "user", "{\"a\":\"\xff\"}"),
		ev("b1", "x", "user", "{\"a\":\"\x7f \u0085 \u00b0 \x1b[31mred\"}"),
		ev("b1", "x", "user", `{"a":"\u001b]0;title\u0007"}`),
		ev("b1", "x", "user", `{"a":"\"}"}`),
		ev("b1", "x", "user", `{"a":[1,{"b":[]}]}`),
		ev("b1", "x", "user", `[1,2]`),
		ev("b1", "x", "user", `{"a":1}{"b":2}`),
		ev("b1", "x", "user", `{"a":1`),
		ev("b1", "x", "user", `"str"`),
		ev("b1", "x", "user", `12`),
		ev("b\"1", "x", "user", `{}`),
		ev("b1", "t<y>", "user", `{}`),
		ev("b1", "x", "tool:é", `{}`),
		ev("b1", "x", "a\x01", `{}`),
		{Branch: "z", Seq: 0, Type: "y", Actor: "a", Data: json.RawMessage(`{}`)},
		{Branch: "z", Seq: 7, Type: "y", Actor: "a", Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))},
	}
}

// writeBoth prints ev as exo log --json does (eventJSON, its plain lines past termSafe) and as
// it did before (views.WriteJSON through termSafe).
func writeBoth(ev api.Event) (fast, slow []byte, fastErr, slowErr error) {
	var f bytes.Buffer
	j := eventJSON{raw: bufio.NewWriter(&f), safe: newTermSafe(&f)}
	fastErr = j.write(ev)
	j.raw.Flush()
	var s bytes.Buffer
	slowErr = views.WriteJSON(newTermSafe(&s), ev, "")
	return f.Bytes(), s.Bytes(), fastErr, slowErr
}

func TestEventJSONMatchesEncoder(t *testing.T) {
	t.Parallel()
	fastPaths := 0
	for _, ev := range eventJSONCases() {
		if _, ok := appendEventJSON(nil, ev); ok {
			fastPaths++
		}
		fast, slow, fe, se := writeBoth(ev)
		if (fe == nil) != (se == nil) || !bytes.Equal(fast, slow) {
			t.Errorf("event %+v:\nfast %q (%v)\nslow %q (%v)", ev, fast, fe, slow, se)
		}
	}
	if fastPaths < 8 {
		t.Fatalf("only %d cases took the fast path", fastPaths)
	}
}

func FuzzEventJSON(f *testing.F) {
	for _, ev := range eventJSONCases() {
		f.Add(ev.Branch, ev.Type, ev.Actor, []byte(ev.Data), ev.Seq)
	}
	f.Fuzz(func(t *testing.T, branch, typ, actor string, data []byte, seq uint64) {
		ev := api.Event{Branch: branch, Seq: seq, Type: typ, Actor: actor, Data: data, Time: time.Unix(int64(seq%1e10), int64(seq%1e9)).UTC()}
		fast, slow, fe, se := writeBoth(ev)
		if se == nil && (fe != nil || !bytes.Equal(fast, slow)) {
			t.Fatalf("fast %q (%v)\nslow %q", fast, fe, slow)
		}
		if se != nil && fe == nil && json.Valid(data) {
			t.Fatalf("valid payload: slow failed (%v), fast printed %q", se, fast)
		}
	})
}

// BenchmarkLogJSONLine prints one event of a 20k-turn session's model.completed as exo log
// --json does: the fast encoder / views.WriteJSON.
func BenchmarkLogJSONLine(b *testing.B) {
	ev := api.Event{Branch: "6b0b60e243d21305", Seq: 80001, Type: "model.completed", Time: time.Now().UTC(), Actor: "executor:default",
		Data: json.RawMessage(`{"duration_ms":3,"model":"m","stop_reason":"end_turn","text":"Step 19999 compiles the **19999-th** package. It reads:\n\n- ` + "`pkg/p19999/main.go`" + `\n- ` + "`pkg/p19999/util.go`" + `\n\nThen it runs ` + "`go vet`" + ` on it and records the result in ` + "`build/19999.log`" + `.","ttft_ms":2,"usage":{"input":2000300,"output":40}}`)}
	b.Run("fast", func(b *testing.B) {
		j := eventJSON{raw: bufio.NewWriter(discard{}), safe: discard{}}
		b.ReportAllocs()
		for b.Loop() {
			if err := j.write(ev); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		w := newTermSafe(bufio.NewWriter(discard{}))
		b.ReportAllocs()
		for b.Loop() {
			if err := views.WriteJSON(w, ev, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
