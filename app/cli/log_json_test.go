package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
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

// TestPlainWord checks the word-at-a-time scan against the byte table: every byte value at
// every place of a word of plain bytes.
func TestPlainWord(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		for at := range 8 {
			w := []byte("abcdefgh")
			w[at] = byte(c)
			want := !inString[c] && c < 0x80
			if got := plainWord(binary.LittleEndian.Uint64(w)); got != want {
				t.Fatalf("byte %#x at %d: plainWord %v, want %v", c, at, got, want)
			}
		}
	}
}

// TestAppendTimeUTC checks the envelope's time against AppendText, and that other zones and
// years are left to it.
func TestAppendTimeUTC(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	times := []time.Time{time.Unix(0, 0).UTC(), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(2026, 11, 29, 1, 2, 3, 100000000, time.UTC)}
	for range 10000 {
		times = append(times, time.Unix(r.Int64N(253402300800), r.Int64N(1e9)).UTC(), time.Unix(r.Int64N(1e10), r.Int64N(1e3)*1e6).UTC())
	}
	for _, tm := range times {
		got, ok := appendTimeUTC([]byte("x"), tm)
		want, _ := tm.AppendText([]byte("x"))
		if !ok || string(got) != string(want) {
			t.Fatalf("%v: %q (%v), want %q", tm, got, ok, want)
		}
	}
	for _, tm := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("X", 3600)), time.Date(2026, 1, 1, 0, 0, 0, 0, time.Local)} {
		if b, ok := appendTimeUTC(nil, tm); ok && tm.Location() != time.UTC {
			t.Fatalf("%v: appended %q", tm, b)
		} else if ok {
			t.Fatalf("%v: a year outside 0..9999 appended %q", tm, b)
		}
	}
}
