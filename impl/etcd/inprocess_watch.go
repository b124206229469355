package etcd

import (
	"context"
	"errors"
	"io"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// inProcessWatch runs the member's watch service in-process, as etcd's
// own adapter does, but over queues that never block a sender. Both ends
// of a watch stream send from the goroutine that must also receive, so
// with etcd's unbuffered channels each can wait on the other for ever
// (etcd-io/etcd#20716). Over gRPC, transport buffers keep them apart; an
// unbounded queue does the same here, as clientv3's per-watch buffers are
// unbounded anyway.
type inProcessWatch struct{ server pb.WatchServer }

func (w inProcessWatch) Watch(ctx context.Context, _ ...grpc.CallOption) (pb.Watch_WatchClient, error) {
	sctx, cancel := context.WithCancel(ctx)
	toServer, toClient := newQueue(), newQueue()
	go func() {
		err := w.server.Watch(&watchServerEnd{streamEnd{ctx: sctx, in: toServer, out: toClient}})
		if err == nil {
			err = io.EOF // what a finished gRPC stream gives its client
		}
		toClient.close(err)
		cancel()
	}()
	return &watchClientEnd{streamEnd{ctx: ctx, in: toClient, out: toServer}}, nil
}

// queue is an unbounded FIFO with a terminal error once closed.
type queue struct {
	mu    sync.Mutex
	items []any
	err   error // set by close; returned once items are drained
	ready chan struct{}
}

func newQueue() *queue { return &queue{ready: make(chan struct{}, 1)} }

func (q *queue) put(m any) {
	q.mu.Lock()
	q.items = append(q.items, m)
	q.mu.Unlock()
	q.signal()
}

func (q *queue) close(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.mu.Unlock()
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// get takes the next item, preferring queued items to ctx's end, as a
// gRPC stream delivers what arrived before it was cancelled.
func (q *queue) get(ctx context.Context) (any, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			m := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			q.mu.Unlock()
			return m, nil
		}
		err := q.err
		q.mu.Unlock()
		if err != nil {
			return nil, err
		}
		select {
		case <-q.ready:
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
}

// streamEnd is what both ends of a stream share: a context, a queue to
// read and a queue to write.
type streamEnd struct {
	ctx     context.Context
	in, out *queue
}

func (e *streamEnd) Context() context.Context { return e.ctx }
func (e *streamEnd) SendMsg(m any) error      { e.out.put(m); return nil }
func (e *streamEnd) RecvMsg(any) error        { return errUntypedRecv }

// watchClientEnd is the client's side of one watch stream.
type watchClientEnd struct{ streamEnd }

func (c *watchClientEnd) Send(r *pb.WatchRequest) error { return c.SendMsg(r) }

func (c *watchClientEnd) Recv() (*pb.WatchResponse, error) {
	m, err := c.in.get(c.ctx)
	if err != nil {
		return nil, err
	}
	return m.(*pb.WatchResponse), nil
}

func (c *watchClientEnd) CloseSend() error {
	c.out.close(io.EOF)
	return nil
}

func (c *watchClientEnd) Header() (metadata.MD, error) { return metadata.MD{}, nil }
func (c *watchClientEnd) Trailer() metadata.MD         { return nil }

// watchServerEnd is the member's side of one watch stream.
type watchServerEnd struct{ streamEnd }

func (s *watchServerEnd) Send(r *pb.WatchResponse) error { return s.SendMsg(r) }

func (s *watchServerEnd) Recv() (*pb.WatchRequest, error) {
	m, err := s.in.get(s.ctx)
	if err != nil {
		if status.Code(err) == codes.Canceled {
			return nil, status.Error(codes.Canceled, "the client connection is closing")
		}
		return nil, err
	}
	return m.(*pb.WatchRequest), nil
}

func (s *watchServerEnd) SetHeader(metadata.MD) error  { return nil }
func (s *watchServerEnd) SendHeader(metadata.MD) error { return nil }
func (s *watchServerEnd) SetTrailer(metadata.MD)       {}

// errUntypedRecv: messages are handed over as pointers, not decoded into
// the caller's, so only the typed Recv can take them. clientv3 and etcd's
// watch service use Recv.
var errUntypedRecv = errors.New("etcd: in-process watch stream: use Recv, not RecvMsg")
