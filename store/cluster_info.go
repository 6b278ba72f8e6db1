package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
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
	rctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	ml, err := e.cli.MemberList(rctx)
	if err != nil {
		return info, e.reach.note(fmt.Errorf("list the cluster's members: %w", err))
	}
	if g, err := e.cli.Get(rctx, e.prefix+"meta/", clientv3.WithKeysOnly(), clientv3.WithLimit(1)); err == nil {
		info.Revision = g.Header.Revision
	}
	for _, m := range ml.Members {
		mi := MemberInfo{Name: m.Name, ID: m.ID, ClientURLs: m.ClientURLs, Learner: m.IsLearner}
		if len(m.ClientURLs) > 0 {
			sctx, scancel := context.WithTimeout(ctx, min(e.timeout, 2*time.Second))
			st, err := e.cli.Status(sctx, m.ClientURLs[0])
			scancel()
			if err != nil {
				mi.Err = err.Error()
			} else {
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
		} else {
			mi.Err = "no client URL (not started yet)"
		}
		info.Members = append(info.Members, mi)
	}
	if info.QuotaBytes == 0 {
		info.QuotaBytes = defaultQuota
	}
	if al, err := e.cli.AlarmList(rctx); err == nil {
		for _, a := range al.Alarms {
			name := a.Alarm.String()
			if !strings.Contains(strings.Join(info.Alarms, "\n"), name) {
				info.Alarms = append(info.Alarms, name)
			}
		}
	}
	if info.Lease != 0 {
		if tl, err := e.cli.TimeToLive(rctx, clientv3.LeaseID(info.Lease)); err == nil && tl.TTL > 0 {
			info.TTLLeft = time.Duration(tl.TTL) * time.Second
		}
	}
	return info, nil
}
