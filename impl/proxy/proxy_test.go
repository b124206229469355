package proxy_test

import (
	"errors"
	"io"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/converge-dev/converge/impl/proxy"
)

// backend answers every connection with its own name, on ip:port.
func backend(t *testing.T, ip string, port int, name string) {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, name)
			c.Close()
		}
	}()
}

// freePort is a port free on every 127.x address (the host's loopback).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func ask(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	b, err := io.ReadAll(c)
	require.NoError(t, err)
	return string(b)
}

func TestRoundRobinFollowsBackendsLive(t *testing.T) {
	target := freePort(t)
	backend(t, "127.0.10.2", target, "a")
	backend(t, "127.0.10.3", target, "b")
	backend(t, "127.0.10.4", target, "c")
	p := proxy.New()
	defer p.Close()
	svc := proxy.Service{Name: "echo", IP: "127.0.20.1", Port: freePort(t), TargetPort: target,
		Backends: []string{"127.0.10.2", "127.0.10.3"}}
	require.NoError(t, p.Sync([]proxy.Service{svc}))
	addr := net.JoinHostPort(svc.IP, strconv.Itoa(svc.Port))
	require.Equal(t, []string{addr}, p.Addresses())

	got := map[string]int{}
	for range 4 {
		got[ask(t, addr)]++
	}
	require.Equal(t, map[string]int{"a": 2, "b": 2}, got, "round-robin over two backends")

	// A backend added and one removed, with no restart of the listener.
	svc.Backends = []string{"127.0.10.3", "127.0.10.4"}
	require.NoError(t, p.Sync([]proxy.Service{svc}))
	got = map[string]int{}
	for range 4 {
		got[ask(t, addr)]++
	}
	require.Equal(t, map[string]int{"b": 2, "c": 2}, got)

	// A dead backend is skipped.
	svc.Backends = []string{"127.0.10.3", "127.0.10.9"}
	require.NoError(t, p.Sync([]proxy.Service{svc}))
	for range 3 {
		require.Equal(t, "b", ask(t, addr))
	}

	// Gone from the list: the listener goes.
	require.NoError(t, p.Sync(nil))
	require.Empty(t, p.Addresses())
	_, err := net.Dial("tcp", addr)
	require.Error(t, err)
}

func TestNoBackendClosesTheConnection(t *testing.T) {
	p := proxy.New()
	defer p.Close()
	svc := proxy.Service{Name: "empty", IP: "127.0.20.2", Port: freePort(t), TargetPort: 1}
	require.NoError(t, p.Sync([]proxy.Service{svc}))
	require.Equal(t, "", ask(t, net.JoinHostPort(svc.IP, strconv.Itoa(svc.Port))))
}

func TestListenFailureIsReportedAndOthersServe(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.20.3:0")
	require.NoError(t, err)
	defer busy.Close()
	target := freePort(t)
	backend(t, "127.0.10.5", target, "ok")
	p := proxy.New()
	good := proxy.Service{Name: "good", IP: "127.0.20.4", Port: freePort(t), TargetPort: target, Backends: []string{"127.0.10.5"}}
	bad := proxy.Service{Name: "bad", IP: "127.0.20.3", Port: busy.Addr().(*net.TCPAddr).Port, TargetPort: target}
	err = p.Sync([]proxy.Service{good, bad})
	require.ErrorContains(t, err, "service bad")
	require.Equal(t, "ok", ask(t, net.JoinHostPort(good.IP, strconv.Itoa(good.Port))))
	require.NoError(t, p.Close())
	require.True(t, errors.Is(p.Sync(nil), proxy.ErrClosed))
}
