package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Sentinel errors; returned errors wrap them with detail, so use errors.Is.
var (
	ErrNotFound      = errors.New("store: not found")
	ErrAlreadyExists = errors.New("store: already exists")
	ErrConflict      = errors.New("store: resource version conflict")
	// ErrGone: the revision asked for has been compacted away. Relist.
	ErrGone = errors.New("store: revision compacted")
	// ErrInvalid: a malformed key, revision or continue token.
	ErrInvalid = errors.New("store: invalid argument")
)

// Object is one stored object. Rev is its mod revision (the resourceVersion),
// CreateRev the revision that created it.
type Object struct {
	Key       Key
	Value     []byte
	Rev       int64
	CreateRev int64
}

// Store reads and writes objects under one key prefix of one etcd.
type Store struct {
	c        *clientv3.Client
	prefix   string
	counters *counterCache
	mode     *readMode
	// compacted is the highest revision this Store compacted to. Each
	// etcd member applies a compaction in its own time, so a lagging one
	// still serves the history; kube-apiserver answers 410 for what its
	// compactor compacted whichever member serves, and so does the Store.
	compacted *atomic.Int64
}

// New returns a Store over c whose keys all start with prefix ("" in
// production; a unique prefix per test isolates tests sharing an etcd).
func New(c *clientv3.Client, prefix string) *Store {
	return &Store{c: c, prefix: strings.TrimSuffix(prefix, "/"), counters: &counterCache{}, mode: &readMode{}, compacted: &atomic.Int64{}}
}

// Create stores a new object and returns its revision. ErrAlreadyExists if
// the key is taken.
func (s *Store) Create(ctx context.Context, k Key, value []byte) (int64, error) {
	if err := validateKey(k); err != nil {
		return 0, err
	}
	key := s.objectKey(k)
	resp, err := s.c.Txn(ctx).If(absent(key)).Then(clientv3.OpPut(key, string(value))).Commit()
	if err != nil {
		return 0, fmt.Errorf("store: create %s: %w", k, err)
	}
	if !resp.Succeeded {
		return 0, fmt.Errorf("%w: %s", ErrAlreadyExists, k)
	}
	s.wrote(ctx, resp.Header.Revision)
	return resp.Header.Revision, nil
}

// Get reads the latest version of an object. ErrNotFound if it is absent.
func (s *Store) Get(ctx context.Context, k Key) (Object, error) {
	if err := validateKey(k); err != nil {
		return Object{}, err
	}
	resp, err := s.c.Get(ctx, s.objectKey(k), s.reads()...)
	if err != nil {
		return Object{}, fmt.Errorf("store: get %s: %w", k, err)
	}
	if len(resp.Kvs) == 0 {
		return Object{}, fmt.Errorf("%w: %s", ErrNotFound, k)
	}
	return objectFromKV(k, resp.Kvs[0]), nil
}

// GetMany reads several objects at one revision in one round trip. An
// absent object comes back as its Key alone (Rev 0).
func (s *Store) GetMany(ctx context.Context, keys ...Key) ([]Object, error) {
	ops := make([]clientv3.Op, len(keys))
	for i, k := range keys {
		if err := validateKey(k); err != nil {
			return nil, err
		}
		ops[i] = clientv3.OpGet(s.objectKey(k), s.reads()...)
	}
	resp, err := s.c.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return nil, fmt.Errorf("store: get %v: %w", keys, err)
	}
	out := make([]Object, len(keys))
	for i, k := range keys {
		out[i] = Object{Key: k}
		if kvs := resp.Responses[i].GetResponseRange().GetKvs(); len(kvs) > 0 {
			out[i] = objectFromKV(k, kvs[0])
		}
	}
	return out, nil
}

// Update replaces an existing object's value and returns the new revision.
// expectRev != 0 makes it a compare-and-swap on the mod revision; 0 makes it
// unconditional. ErrConflict or ErrNotFound otherwise; Update never creates.
func (s *Store) Update(ctx context.Context, k Key, value []byte, expectRev int64) (int64, error) {
	if err := validatePrecondition(k, expectRev); err != nil {
		return 0, err
	}
	key := s.objectKey(k)
	resp, err := s.c.Txn(ctx).
		If(precondition(key, expectRev)).
		Then(clientv3.OpPut(key, string(value))).
		Else(clientv3.OpGet(key, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, fmt.Errorf("store: update %s: %w", k, err)
	}
	if !resp.Succeeded {
		return 0, preconditionFailure(k, expectRev, resp)
	}
	s.wrote(ctx, resp.Header.Revision)
	return resp.Header.Revision, nil
}

// Delete removes an object under the same precondition rules as Update. It
// returns the object's last value with Rev set to the deletion revision.
// UpdateGuarded is Update with expectRev > 0 that also requires key guard
// to be at mod revision guardRev, in the same transaction: a write that
// rests on another object's value it did not read again (a binding on its
// node's readiness). It fails with ErrConflict when either has moved.
func (s *Store) UpdateGuarded(ctx context.Context, k Key, value []byte, expectRev int64, guard Key, guardRev int64) (int64, error) {
	if err := validatePrecondition(k, expectRev); err != nil {
		return 0, err
	}
	if err := validatePrecondition(guard, guardRev); err != nil {
		return 0, err
	}
	if expectRev == 0 || guardRev == 0 {
		return 0, fmt.Errorf("%w: guarded update of %s needs both revisions", ErrInvalid, k)
	}
	key, gkey := s.objectKey(k), s.objectKey(guard)
	resp, err := s.c.Txn(ctx).
		If(precondition(key, expectRev), precondition(gkey, guardRev)).
		Then(clientv3.OpPut(key, string(value))).
		Commit()
	if err != nil {
		return 0, fmt.Errorf("store: update %s: %w", k, err)
	}
	if !resp.Succeeded {
		return 0, fmt.Errorf("%w: %s is no longer at revision %d or %s at %d", ErrConflict, k, expectRev, guard, guardRev)
	}
	s.wrote(ctx, resp.Header.Revision)
	return resp.Header.Revision, nil
}

func (s *Store) Delete(ctx context.Context, k Key, expectRev int64) (Object, error) {
	if err := validatePrecondition(k, expectRev); err != nil {
		return Object{}, err
	}
	key := s.objectKey(k)
	resp, err := s.c.Txn(ctx).
		If(precondition(key, expectRev)).
		Then(clientv3.OpDelete(key, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(key, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return Object{}, fmt.Errorf("store: delete %s: %w", k, err)
	}
	if !resp.Succeeded {
		return Object{}, preconditionFailure(k, expectRev, resp)
	}
	s.wrote(ctx, resp.Header.Revision)
	deleted := Object{Key: k, Rev: resp.Header.Revision}
	if prev := resp.Responses[0].GetResponseDeleteRange().GetPrevKvs(); len(prev) == 1 {
		deleted.Value = prev[0].Value
		deleted.CreateRev = prev[0].CreateRevision
	}
	return deleted, nil
}

// Rev is the current revision of the whole etcd (not just this prefix).
func (s *Store) Rev(ctx context.Context) (int64, error) {
	resp, err := s.c.Get(ctx, s.prefix+"/registry/", s.reads(clientv3.WithCountOnly())...)
	if err != nil {
		return 0, fmt.Errorf("store: read revision: %w", err)
	}
	return resp.Header.Revision, nil
}

// Drop deletes every key under the store's prefix, in one etcd delete: the
// end of a scratch store, such as each check's in a campaign, whose keys
// would otherwise fill etcd's database. Nothing may use the store after.
// A store without a prefix owns all of etcd and refuses.
func (s *Store) Drop(ctx context.Context) error {
	if s.prefix == "" {
		return fmt.Errorf("%w: drop of a store without a prefix would empty etcd", ErrInvalid)
	}
	if _, err := s.c.Delete(ctx, s.prefix+"/", clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("store: drop %s: %w", s.prefix, err)
	}
	return nil
}

// Compact discards history before rev for the whole etcd: reads at older
// revisions, and watches starting before rev, then fail with ErrGone.
func (s *Store) Compact(ctx context.Context, rev int64) error {
	if rev <= 0 {
		return fmt.Errorf("%w: compact revision %d must be positive", ErrInvalid, rev)
	}
	_, err := s.c.Compact(ctx, rev)
	if err != nil && !errors.Is(err, rpctypes.ErrCompacted) { // ErrCompacted: already compacted at least this far
		return fmt.Errorf("store: compact to revision %d: %w", rev, err)
	}
	for c := s.compacted.Load(); c < rev && !s.compacted.CompareAndSwap(c, rev); c = s.compacted.Load() {
	}
	return nil
}

// compactedPast says whether history before rev was compacted by this
// Store: what etcd answers ErrCompacted for once every member applied it.
func (s *Store) compactedPast(rev int64) bool { return rev != 0 && rev < s.compacted.Load() }

func absent(key string) clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(key), "=", 0)
}

// precondition is "exists" for expectRev 0 and "mod revision is expectRev"
// otherwise; an absent key has mod revision 0, so it never matches.
func precondition(key string, expectRev int64) clientv3.Cmp {
	if expectRev == 0 {
		return clientv3.Compare(clientv3.CreateRevision(key), ">", 0)
	}
	return clientv3.Compare(clientv3.ModRevision(key), "=", expectRev)
}

func validatePrecondition(k Key, expectRev int64) error {
	if err := validateKey(k); err != nil {
		return err
	}
	if expectRev < 0 {
		return fmt.Errorf("%w: %s: negative expected revision %d", ErrInvalid, k, expectRev)
	}
	return nil
}

// preconditionFailure tells conflict from absence using the Else branch's
// read, which saw the same revision as the failed compare.
func preconditionFailure(k Key, expectRev int64, resp *clientv3.TxnResponse) error {
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, k)
	}
	return fmt.Errorf("%w: %s is at revision %d, expected %d", ErrConflict, k, kvs[0].ModRevision, expectRev)
}

func objectFromKV(k Key, kv *mvccpb.KeyValue) Object {
	return Object{Key: k, Value: kv.Value, Rev: kv.ModRevision, CreateRev: kv.CreateRevision}
}
