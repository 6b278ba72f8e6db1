package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"exo/harness/eventlog"
	"exo/store"
	"exo/store/etcdtest"
)

// BenchmarkEtcdCheckpointQuota writes a 100k-event session of realistic turns (checkpointed
// every 512 events, the real Session projection) into a one-member etcd cluster, with the
// daemon's checkpoint pruning ("pruned") and without it ("kept"), and reports what the
// session's checkpoints take of the cluster: their live keys and values, and the backend's
// size once compacted and defragmented (what counts against --quota-backend-bytes). Run it
// with -benchtime=1x: one operation is the whole session.
func BenchmarkEtcdCheckpointQuota(b *testing.B) {
	for _, mode := range []string{"pruned", "kept"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				quotaRun(b, mode == "kept")
			}
		})
	}
}

// quotaRun writes one 100k-event session and reports its checkpoints' share of the cluster.
func quotaRun(b *testing.B, keep bool) {
	b.StopTimer()
	c := etcdtest.Start(b, 1, etcdtest.Options{})
	defer c.Stop()
	ns := "quota"
	h, err := Open(b.TempDir(), Options{Store: fmt.Sprintf("etcd://%s/%s?node=n", c.Endpoints[0], ns), SandboxHelper: testHelper()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	h.SetKeepCheckpoints(keep)
	s, err := h.NewSession(NewSessionOptions{Name: "long", Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	h.State(s.ID) // cached: appends checkpoint as they go
	b.StartTimer()
	for i := 0; ; i += 10 {
		if st, _ := h.State(s.ID); st.Head >= 100_000 {
			break
		}
		var recs []store.Record
		for j := range 10 {
			recs = append(recs, realisticTurn(i+j)...)
		}
		if _, err := h.Append(s.ID, recs...); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer cli.Close()
	ctx := context.Background()
	var live, count int64
	for _, pfx := range []string{"projections/", "checkpoint-chunks/"} {
		resp, err := cli.Get(ctx, "exo/v1/"+ns+"/"+pfx, clientv3.WithPrefix())
		if err != nil {
			b.Fatal(err)
		}
		for _, kv := range resp.Kvs {
			live += int64(len(kv.Key) + len(kv.Value))
			if pfx == "projections/" {
				count++
			}
		}
	}
	resp, err := cli.Get(ctx, "exo/v1/"+ns+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		b.Fatal(err)
	}
	if _, err := cli.Defragment(ctx, c.Endpoints[0]); err != nil {
		b.Fatal(err)
	}
	st, err := cli.Status(ctx, c.Endpoints[0])
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(live)/(1<<20), "checkpoint-MiB")
	b.ReportMetric(float64(count), "checkpoints")
	b.ReportMetric(float64(st.DbSize)/(1<<20), "db-MiB")
}

// BenchmarkBoltCheckpointFile is BenchmarkEtcdCheckpointQuota on the local bbolt file: the
// same 100k-event session with pruning ("pruned") and without ("kept"), reporting the
// checkpoints kept and the size of exo.db (bbolt reuses freed pages; the file does not
// shrink). Run it with -benchtime=1x.
func BenchmarkBoltCheckpointFile(b *testing.B) {
	for _, mode := range []string{"pruned", "kept"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				home := b.TempDir()
				h, err := Open(home, Options{NoSync: true, SandboxHelper: testHelper()})
				if err != nil {
					b.Fatal(err)
				}
				h.SetKeepCheckpoints(mode == "kept")
				s, err := h.NewSession(NewSessionOptions{Name: "long", Workspace: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				h.State(s.ID)
				b.StartTimer()
				for i := 0; ; i += 10 {
					if st, _ := h.State(s.ID); st.Head >= 100_000 {
						break
					}
					var recs []store.Record
					for j := range 10 {
						recs = append(recs, realisticTurn(i+j)...)
					}
					if _, err := h.Append(s.ID, recs...); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				st, _ := h.State(s.ID)
				kept := map[uint64]bool{}
				h.st.View(func(tx *store.Tx) error {
					for seq := uint64(DefaultCheckpointEvery); seq <= st.Head; seq += DefaultCheckpointEvery / 4 {
						if at, _, ok, err := tx.LatestCheckpoint(eventlog.SessionProjection, s.Branch, seq); err == nil && ok {
							kept[at] = true
						}
					}
					return nil
				})
				h.Close()
				fi, err := os.Stat(filepath.Join(home, store.DBName))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(kept)), "checkpoints")
				b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
			}
		})
	}
}
