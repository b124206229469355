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
	n, known := s.counters.take(counter)
	if !known {
		resp, err := s.c.Get(ctx, counter)
		if err != nil {
			return Object{}, fmt.Errorf("store: read generateName counter %s: %w", counter, err)
		}
		stored, err := parseCounter(counter, resp.Kvs)
		if err != nil {
			return Object{}, err
		}
		n = s.counters.takeFrom(counter, stored)
	}
	for {
		if err := ctx.Err(); err != nil {
			s.counters.giveBack(counter, n)
			return Object{}, fmt.Errorf("store: create %s/%s with generateName %q: %w", resource, namespace, generatePrefix, err)
		}
		k := Key{Resource: resource, Namespace: namespace, Name: model.GeneratedName(generatePrefix, int(n))}
		value, err := render(k.Name)
		if err != nil {
			s.counters.giveBack(counter, n)
			return Object{}, fmt.Errorf("store: render %s: %w", k, err)
		}
		// The name's absence is the only condition. This store hands each
		// number out once (counterCache), so its own creators never race
		// for a name and can create at once, as a controller's slow-start
		// batch does; creators elsewhere that took the same number lose
		// on the name. The counter is written with each create, so that
		// a store started later goes on from it; writes that commit out of
		// order may leave it behind, which costs that store one attempt
		// per name it then skips.
		txn, err := s.c.Txn(ctx).
			If(absent(s.objectKey(k))).
			Then(clientv3.OpPut(counter, strconv.FormatInt(n+1, 10)), clientv3.OpPut(s.objectKey(k), string(value))).
			Else(clientv3.OpGet(counter)).
			Commit()
		if err != nil {
			s.counters.giveBack(counter, n)
			return Object{}, fmt.Errorf("store: create %s: %w", k, err)
		}
		if txn.Succeeded {
			rev := txn.Header.Revision
			s.wrote(ctx, rev)
			return Object{Key: k, Value: value, Rev: rev, CreateRev: rev}, nil
		}
		// The name is taken, by a create by name or by another store's
		// creator: go on from the counter if it is ahead.
		stored, err := parseCounter(counter, txn.Responses[0].GetResponseRange().GetKvs())
		if err != nil {
			return Object{}, err
		}
		n = s.counters.takeFrom(counter, stored)
	}
}

// parseCounter reads a counter's next number; an absent counter is 0.
func parseCounter(counter string, kvs []*mvccpb.KeyValue) (int64, error) {
	if len(kvs) == 0 {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(kvs[0].Value), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("store: generateName counter %s holds %q, not a count", counter, kvs[0].Value)
	}
	return n, nil
}

// counterCache hands out each generateName counter's numbers in this
// store: the next one for each counter it has seen. A controller creating
// pods one after another then skips the read before each create, and
// creators running at once each get a number of their own.
type counterCache struct {
	mu sync.Mutex
	m  map[string]int64
}

// maxCachedCounters bounds the cache; past it, it starts again empty.
const maxCachedCounters = 4096

// take hands out counter's next number, if the cache knows the counter.
func (c *counterCache) take(counter string) (n int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok = c.m[counter]
	if ok {
		c.m[counter] = n + 1
	}
	return n, ok
}

// takeFrom hands out counter's next number, at least stored, the value
// read from the store.
func (c *counterCache) takeFrom(counter string, stored int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedCounters {
		c.m = map[string]int64{}
	}
	n := max(c.m[counter], stored)
	c.m[counter] = n + 1
	return n
}

// giveBack returns n, taken for a create that wrote nothing, so that the
// next create gets it, as if nothing had been taken; unless another
// number was taken since.
func (c *counterCache) giveBack(counter string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[counter] == n+1 {
		c.m[counter] = n
	}
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
	n, err := parseCounter(counter, resp.Kvs)
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
