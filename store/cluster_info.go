package store

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
)

// ClusterInfo describes the etcd cluster a shared store is kept in, as this daemon sees it.
type ClusterInfo struct {
	// Endpoints are the client URLs the store was opened with.
	Endpoints []string
	// Namespace and Node are where the store's keys live and this daemon's name there.
	Namespace, Node string
	// Members lists the cluster's members, each with what it answered (Err when it did not).
	Members []MemberInfo
	// Leader names the member that leads ("" while none does, or none answered).
	Leader string
	// Revision is the cluster's current revision.
	Revision int64
	// DBBytes is the largest backend size a member reported; QuotaBytes its space quota
	// (etcd's default of 2 GiB when the members do not say).
	DBBytes, QuotaBytes int64
	// Lease is this daemon's lease (0 when it holds none), its TTL and the seconds it has left.
	Lease        int64
	TTL, TTLLeft time.Duration
	// Reach says whether the cluster answers.
	Reach Reachability
	// Alarms are the cluster's raised alarms (NOSPACE, CORRUPT).
	Alarms []string
}

// MemberInfo is one member of the cluster.
type MemberInfo struct {
	Name       string
	ID         uint64
	ClientURLs []string
	Learner    bool
	// Version and DBBytes are what the member answered; Err why it did not.
	Version string
	DBBytes int64
	Err     string
}

// defaultQuota is etcd's --quota-backend-bytes when it is not set.
const defaultQuota = 2 << 30

// Cluster describes the etcd cluster behind a shared store (nil on a local store). Members
// that do not answer are listed with why; a cluster that does not answer at all is an error.
func (s *Store) Cluster(ctx context.Context) (*ClusterInfo, error) {
	e, ok := s.kv.(*etcdEngine)
	if !ok {
		return nil, nil
	}
	r, _ := e.reach.get()
	info := &ClusterInfo{Endpoints: e.cli.Endpoints(), Namespace: e.ns, Node: e.node, TTL: e.ttl, Reach: r, Lease: int64(e.currentLease())}
	// Each request has the request timeout of its own, as the store's other requests do: with
	// one for them all, the last ones were left what the first did not use, and a loaded
	// cluster's report lost its lease and alarms.
	req := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, e.timeout) }
	rctx, cancel := req()
	ml, err := e.cli.MemberList(rctx)
	cancel()
	if err != nil {
		return info, e.reach.note(fmt.Errorf("list the cluster's members: %w", err))
	}
	rctx, cancel = req()
	if g, err := e.cli.Get(rctx, e.prefix+"meta/", clientv3.WithKeysOnly(), clientv3.WithLimit(1)); err == nil {
		info.Revision = g.Header.Revision
	}
	cancel()
	// Every member is asked at once, each within the request timeout: a member that does not
	// answer costs the report one timeout, not one per member, and a live member slow to
	// answer (a loaded machine) is not reported as down after a shorter wait. A member that
	// refuses the connection (down) answers at once.
	type answer struct {
		st  *clientv3.StatusResponse
		err error
	}
	answers := make([]answer, len(ml.Members))
	var wg sync.WaitGroup
	for i, m := range ml.Members {
		if len(m.ClientURLs) == 0 {
			continue
		}
		wg.Go(func() { answers[i].st, answers[i].err = e.memberStatus(req, m.ClientURLs[0]) })
	}
	wg.Wait()
	for i, m := range ml.Members {
		mi := MemberInfo{Name: m.Name, ID: m.ID, ClientURLs: m.ClientURLs, Learner: m.IsLearner}
		st, err := answers[i].st, answers[i].err
		switch {
		case len(m.ClientURLs) == 0:
			mi.Err = "no client URL (not started yet)"
		case err != nil:
			mi.Err = err.Error()
		case st.Header != nil && st.Header.MemberId != m.ID:
			// Another server answers at the member's address (the member is gone and another
			// etcd took its port, or the URL is misconfigured): what it says is not this
			// member's.
			mi.Err = fmt.Sprintf("%s is answered by etcd member %x, not by this member %x", m.ClientURLs[0], st.Header.MemberId, m.ID)
		default:
			mi.Version, mi.DBBytes = st.Version, st.DbSize
			info.DBBytes = max(info.DBBytes, st.DbSize)
			if st.DbSizeQuota > 0 {
				info.QuotaBytes = st.DbSizeQuota
			}
			if st.Leader != 0 && st.Leader == m.ID {
				info.Leader = m.Name
			}
			for _, em := range st.Errors {
				if !strings.Contains(strings.Join(info.Alarms, "\n"), em) {
					info.Alarms = append(info.Alarms, em)
				}
			}
		}
		info.Members = append(info.Members, mi)
	}
	if info.QuotaBytes == 0 {
		info.QuotaBytes = defaultQuota
	}
	rctx, cancel = req()
	defer cancel()
	if al, err := e.cli.AlarmList(rctx); err == nil {
		for _, a := range al.Alarms {
			name := a.Alarm.String()
			if !strings.Contains(strings.Join(info.Alarms, "\n"), name) {
				info.Alarms = append(info.Alarms, name)
			}
		}
	}
	if info.Lease != 0 {
		rctx, cancel := req()
		defer cancel()
		if tl, err := e.cli.TimeToLive(rctx, clientv3.LeaseID(info.Lease)); err == nil && tl.TTL > 0 {
			info.TTLLeft = time.Duration(tl.TTL) * time.Second
		}
	}
	return info, nil
}

// memberStatus asks the member at url for its status. Unlike the client's Status, which waits
// for a connection until its context ends, a refused connection fails at once: a member that
// is down does not hold the report for the request timeout.
func (e *etcdEngine) memberStatus(req func() (context.Context, context.CancelFunc), url string) (*clientv3.StatusResponse, error) {
	conn, err := e.cli.Dial(url)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	defer conn.Close()
	ctx, cancel := req()
	defer cancel()
	resp, err := pb.NewMaintenanceClient(conn).Status(ctx, &pb.StatusRequest{}, grpc.WaitForReady(false))
	if err != nil {
		return nil, clientv3.ContextError(ctx, err)
	}
	return (*clientv3.StatusResponse)(resp), nil
}
