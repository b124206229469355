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
	p, err := s.ListPage(ctx, resource, namespace, o)
	return p.Objects, p.Rev, p.Continue, err
}

// Page is one page of a list.
type Page struct {
	Objects []Object
	Rev     int64
	// Continue fetches the next page; "" on the last.
	Continue string
	// Remaining counts the objects after this page, what etcd's range
	// reports with it; 0 on the last page.
	Remaining int64
}

// ListPage is List, with the count of what remains after the page, as
// kube-apiserver's metadata.remainingItemCount.
func (s *Store) ListPage(ctx context.Context, resource, namespace string, o ListOptions) (Page, error) {
	if err := validateScope(resource, namespace); err != nil {
		return Page{}, err
	}
	if o.AtRev < 0 || o.Limit < 0 {
		return Page{}, fmt.Errorf("%w: list %s: negative AtRev %d or Limit %d", ErrInvalid, resource, o.AtRev, o.Limit)
	}
	if spansResources(resource) {
		return s.listUnion(ctx, resource, o)
	}
	prefix := s.scopePrefix(resource, namespace)
	start, rev := prefix, o.AtRev
	if o.Continue != "" {
		tok, err := decodeContinue(o.Continue)
		if err != nil {
			return Page{}, err
		}
		if o.AtRev != 0 && o.AtRev != tok.Rev {
			return Page{}, fmt.Errorf("%w: AtRev %d differs from the continue token's revision %d", ErrInvalid, o.AtRev, tok.Rev)
		}
		start, rev = prefix+tok.Start, tok.Rev
	}
	opts := []clientv3.OpOption{clientv3.WithRange(clientv3.GetPrefixRangeEnd(prefix)), clientv3.WithRev(rev)}
	if o.Limit > 0 {
		opts = append(opts, clientv3.WithLimit(o.Limit))
	}
	if s.compactedPast(rev) {
		return Page{}, fmt.Errorf("%w: list %s at revision %d", ErrGone, resource, rev)
	}
	resp, err := s.c.Get(ctx, start, s.reads(opts...)...)
	if errors.Is(err, rpctypes.ErrCompacted) {
		return Page{}, fmt.Errorf("%w: list %s at revision %d", ErrGone, resource, rev)
	}
	if err != nil {
		return Page{}, fmt.Errorf("store: list %s at revision %d: %w", resource, rev, err)
	}
	p := Page{Rev: rev, Objects: make([]Object, 0, len(resp.Kvs))}
	if p.Rev == 0 {
		p.Rev = resp.Header.Revision
	}
	for _, kv := range resp.Kvs {
		p.Objects = append(p.Objects, objectFromKV(s.parseKey(resource, kv.Key), kv))
	}
	if resp.More && len(resp.Kvs) > 0 {
		last := strings.TrimPrefix(string(resp.Kvs[len(resp.Kvs)-1].Key), prefix)
		// "\x00" is the smallest suffix: the next page starts just after last.
		p.Continue = encodeContinue(pageToken{Rev: p.Rev, Start: last + "\x00"})
		p.Remaining = resp.Count - int64(len(resp.Kvs))
	}
	return p, nil
}

// listUnion lists each of union's resources at one revision, the first's.
func (s *Store) listUnion(ctx context.Context, union string, o ListOptions) (Page, error) {
	if o.Limit != 0 || o.Continue != "" {
		return Page{}, fmt.Errorf("%w: %s is listed whole, in one page", ErrInvalid, union)
	}
	p := Page{Rev: o.AtRev}
	for _, m := range unionMembers(union) {
		mp, err := s.ListPage(ctx, m, "", ListOptions{AtRev: p.Rev})
		if err != nil {
			return Page{}, err
		}
		p.Rev = mp.Rev
		p.Objects = append(p.Objects, mp.Objects...)
	}
	return p, nil
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
