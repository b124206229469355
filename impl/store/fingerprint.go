package store

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Scope is the objects of a resource in one namespace ("" = all).
type Scope struct{ Resource, Namespace string }

// Fingerprint tells whether a scope's objects changed without reading
// them: any create or update raises MaxModRev past every revision before
// it, and a delete that leaves MaxModRev where it was lowers Count. So
// two equal fingerprints of one scope mean the same objects at the same
// versions, and a caller can keep what it built from them.
type Fingerprint struct{ Count, MaxModRev int64 }

// Fingerprints reads the fingerprints of several scopes at one revision,
// which it returns, in one round trip.
func (s *Store) Fingerprints(ctx context.Context, scopes ...Scope) ([]Fingerprint, int64, error) {
	ops := make([]clientv3.Op, 0, 2*len(scopes))
	for _, sc := range scopes {
		if err := validateScope(sc.Resource, sc.Namespace); err != nil {
			return nil, 0, err
		}
		if spansResources(sc.Resource) {
			return nil, 0, fmt.Errorf("%w: %s spans resources that share no prefix: fingerprint each", ErrInvalid, sc.Resource)
		}
		prefix := s.scopePrefix(sc.Resource, sc.Namespace)
		end := clientv3.GetPrefixRangeEnd(prefix)
		ops = append(ops,
			clientv3.OpGet(prefix, s.reads(clientv3.WithRange(end), clientv3.WithCountOnly())...),
			clientv3.OpGet(prefix, s.reads(clientv3.WithRange(end), clientv3.WithKeysOnly(), clientv3.WithLimit(1),
				clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortDescend))...))
	}
	resp, err := s.c.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return nil, 0, fmt.Errorf("store: fingerprints: %w", err)
	}
	out := make([]Fingerprint, len(scopes))
	for i := range scopes {
		out[i].Count = resp.Responses[2*i].GetResponseRange().GetCount()
		if kvs := resp.Responses[2*i+1].GetResponseRange().GetKvs(); len(kvs) > 0 {
			out[i].MaxModRev = kvs[0].ModRevision
		}
	}
	return out, resp.Header.Revision, nil
}
