package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/converge-dev/converge/model"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// CreateGenerated creates an object named generatePrefix + N, where N is the
// next value of the (resource, namespace, generatePrefix) counter, and returns
// it. render makes the value for a candidate name; it may be called more than
// once (a lost race or a name already taken by a create-by-name moves on to
// another candidate), so it must not have side effects. A render error is
// returned wrapped and nothing is written.
func (s *Store) CreateGenerated(ctx context.Context, resource, namespace, generatePrefix string,
	render func(name string) ([]byte, error)) (Object, error) {
	if err := validateScope(resource, namespace); err != nil {
		return Object{}, err
	}
	if strings.Contains(generatePrefix, "/") {
		return Object{}, fmt.Errorf("%w: generateName prefix %q contains '/'", ErrInvalid, generatePrefix)
	}
	if render == nil {
		return Object{}, fmt.Errorf("%w: nil render function", ErrInvalid)
	}
	counter := s.counterKey(resource, namespace, generatePrefix)
	n, counterRev, known := s.counters.get(counter)
	if !known {
		resp, err := s.c.Get(ctx, counter)
		if err != nil {
			return Object{}, fmt.Errorf("store: read generateName counter %s: %w", counter, err)
		}
		if n, counterRev, err = parseCounter(counter, resp.Kvs); err != nil {
			return Object{}, err
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return Object{}, fmt.Errorf("store: create %s/%s with generateName %q: %w", resource, namespace, generatePrefix, err)
		}
		k := Key{Resource: resource, Namespace: namespace, Name: model.GeneratedName(generatePrefix, int(n))}
		value, err := render(k.Name)
		if err != nil {
			return Object{}, fmt.Errorf("store: render %s: %w", k, err)
		}
		key := s.objectKey(k)
		// Compare the counter's mod revision (0 while it does not exist) so
		// that two creators racing for the same N cannot both win.
		txn, err := s.c.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(counter), "=", counterRev), absent(key)).
			Then(clientv3.OpPut(counter, strconv.FormatInt(n+1, 10)), clientv3.OpPut(key, string(value))).
			Else(clientv3.OpGet(counter)).
			Commit()
		if err != nil {
			return Object{}, fmt.Errorf("store: create %s: %w", k, err)
		}
		if txn.Succeeded {
			rev := txn.Header.Revision
			s.counters.put(counter, n+1, rev)
			return Object{Key: k, Value: value, Rev: rev, CreateRev: rev}, nil
		}
		kvs := txn.Responses[0].GetResponseRange().GetKvs()
		var nowRev int64
		if len(kvs) == 1 {
			nowRev = kvs[0].ModRevision
		}
		if nowRev != counterRev {
			// Someone else advanced the counter: start again from its value.
			if n, counterRev, err = parseCounter(counter, kvs); err != nil {
				return Object{}, err
			}
			continue
		}
		n++ // the counter is ours but the name was created by name: skip it
	}
}

// parseCounter reads a counter's next number and mod revision; an absent
// counter is (0, 0).
func parseCounter(counter string, kvs []*mvccpb.KeyValue) (n, rev int64, err error) {
	if len(kvs) == 0 {
		return 0, 0, nil
	}
	n, err = strconv.ParseInt(string(kvs[0].Value), 10, 64)
	if err != nil || n < 0 {
		return 0, 0, fmt.Errorf("store: generateName counter %s holds %q, not a count", counter, kvs[0].Value)
	}
	return n, kvs[0].ModRevision, nil
}

// counterCache remembers each generateName counter's value and mod
// revision after this store's own creates, so that a controller creating
// pods one after another skips the read before each create: the create's
// compare on the counter's revision still catches every other writer, and
// its failure answers with the counter's current value.
type counterCache struct {
	mu sync.Mutex
	m  map[string][2]int64
}

// maxCachedCounters bounds the cache; past it, it starts again empty.
const maxCachedCounters = 4096

func (c *counterCache) get(counter string) (n, rev int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[counter]
	return v[0], v[1], ok
}

func (c *counterCache) put(counter string, n, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedCounters {
		c.m = map[string][2]int64{}
	}
	c.m[counter] = [2]int64{n, rev}
}

// NextGeneratedName is the name CreateGenerated would give now, without
// writing anything (for dry runs): the counter's next number, past names
// already taken by creates by name.
func (s *Store) NextGeneratedName(ctx context.Context, resource, namespace, generatePrefix string) (string, error) {
	if err := validateScope(resource, namespace); err != nil {
		return "", err
	}
	counter := s.counterKey(resource, namespace, generatePrefix)
	resp, err := s.c.Get(ctx, counter)
	if err != nil {
		return "", fmt.Errorf("store: read generateName counter %s: %w", counter, err)
	}
	n, _, err := parseCounter(counter, resp.Kvs)
	if err != nil {
		return "", err
	}
	for ; ; n++ {
		k := Key{Resource: resource, Namespace: namespace, Name: model.GeneratedName(generatePrefix, int(n))}
		if _, err := s.Get(ctx, k); errors.Is(err, ErrNotFound) {
			return k.Name, nil
		} else if err != nil {
			return "", err
		}
	}
}
