package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// ListOptions selects a page of a List. The zero value lists everything at
// the latest revision.
type ListOptions struct {
	// AtRev reads the snapshot at this revision; 0 means the latest.
	AtRev int64
	// Limit caps the objects returned; 0 means no cap.
	Limit int64
	// Continue is the token returned with the previous page. It pins that
	// page's revision, so AtRev must be 0 or equal to it.
	Continue string
}

// pageToken is a decoded continue token (opaque to callers). Start is
// relative to the scope prefix, so a token never reaches outside the scope it
// is used with.
type pageToken struct {
	Rev   int64  `json:"rev"`
	Start string `json:"start"`
}

// List returns the objects of resource in namespace ("" = all namespaces),
// sorted by key, at one revision, which it returns as listRev. When Limit cut
// the page short, continueToken fetches the next page of the same snapshot;
// otherwise it is "". ErrGone if the revision has been compacted.
func (s *Store) List(ctx context.Context, resource, namespace string, o ListOptions) (objs []Object, listRev int64, continueToken string, err error) {
	if err := validateScope(resource, namespace); err != nil {
		return nil, 0, "", err
	}
	if o.AtRev < 0 || o.Limit < 0 {
		return nil, 0, "", fmt.Errorf("%w: list %s: negative AtRev %d or Limit %d", ErrInvalid, resource, o.AtRev, o.Limit)
	}
	prefix := s.scopePrefix(resource, namespace)
	start, rev := prefix, o.AtRev
	if o.Continue != "" {
		tok, err := decodeContinue(o.Continue)
		if err != nil {
			return nil, 0, "", err
		}
		if o.AtRev != 0 && o.AtRev != tok.Rev {
			return nil, 0, "", fmt.Errorf("%w: AtRev %d differs from the continue token's revision %d", ErrInvalid, o.AtRev, tok.Rev)
		}
		start, rev = prefix+tok.Start, tok.Rev
	}
	opts := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(prefix)), clientv3.WithRev(rev)}
	if o.Limit > 0 {
		opts = append(opts, clientv3.WithLimit(o.Limit))
	}
	resp, err := s.c.Get(ctx, start, opts...)
	if errors.Is(err, rpctypes.ErrCompacted) {
		return nil, 0, "", fmt.Errorf("%w: list %s at revision %d", ErrGone, resource, rev)
	}
	if err != nil {
		return nil, 0, "", fmt.Errorf("store: list %s at revision %d: %w", resource, rev, err)
	}
	listRev = rev
	if listRev == 0 {
		listRev = resp.Header.Revision
	}
	objs = make([]Object, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		objs = append(objs, objectFromKV(s.parseKey(resource, kv.Key), kv))
	}
	if resp.More && len(resp.Kvs) > 0 {
		last := strings.TrimPrefix(string(resp.Kvs[len(resp.Kvs)-1].Key), prefix)
		// "\x00" is the smallest suffix: the next page starts just after last.
		continueToken = encodeContinue(pageToken{Rev: listRev, Start: last + "\x00"})
	}
	return objs, listRev, continueToken, nil
}

func encodeContinue(t pageToken) string {
	b, _ := json.Marshal(t) // two plain fields: cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (pageToken, error) {
	var t pageToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err == nil && (t.Rev <= 0 || t.Start == "") {
		err = errors.New("missing revision or start")
	}
	if err != nil {
		return pageToken{}, fmt.Errorf("%w: continue token %q: %v", ErrInvalid, s, err)
	}
	return t, nil
}
