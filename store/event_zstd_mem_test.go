package store

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestEncoderMemoryBounded encodes events from several goroutines at once, as a daemon's turns
// and journal do, and measures what the codec then holds: 21.2 MiB with zstd's defaults (an
// 8 MiB history and 2 MiB of tables per core), 3.6 MiB with one state at the default level and
// a 1 MiB window, under 1.5 MiB with the fastest level's one table and a 256 KiB window.
func TestEncoderMemoryBounded(t *testing.T) {
	dict := []byte(strings.Repeat(`{"type":"tool.completed","actor":"tool:bash","output":"`, 40))
	v := Vocabulary{Names: []string{"memtest." + t.Name()}, DictID: 0x7e57, Dict: dict}
	before := heapInUse()
	c := NewCodec(v)
	var wg sync.WaitGroup
	for g := range runtime.GOMAXPROCS(0) + 1 {
		wg.Go(func() {
			for i := range 50 {
				e := Event{Seq: uint64(i + 1), Type: "tool.completed", Actor: "tool:bash", Time: time.Unix(1, 0),
					Data: json.RawMessage(`{"output":"` + strings.Repeat("line of output ", 200+g*10+i) + `"}`)}
				if enc := c.Encode(&e); len(enc) == 0 || enc[0] != encodingCompressed {
					t.Errorf("event %d stored as version %d", i, enc[0])
				}
			}
		})
	}
	wg.Wait()
	held := heapInUse() - before
	runtime.KeepAlive(c)
	const limit = 3 << 19
	if held > limit {
		t.Fatalf("the codec holds %.1f MiB after encoding, more than %.1f MiB", float64(held)/(1<<20), float64(limit)/(1<<20))
	}
	// Events larger than the window still compress.
	big := Event{Seq: 1, Type: "x", Actor: "u", Data: json.RawMessage(`"` + strings.Repeat("0123456789abcdef", 3*encoderWindow/16) + `"`)}
	enc := c.Encode(&big)
	if enc[0] != encodingCompressed || len(enc) > len(big.Data)/100 {
		t.Fatalf("a %d-byte event stored as version %d in %d bytes", len(big.Data), enc[0], len(enc))
	}
	got, err := c.Decode("b", enc)
	if err != nil || !bytes.Equal(got.Data, big.Data) {
		t.Fatalf("decoding the large event: %v", err)
	}
}

// heapInUse returns the bytes of heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
