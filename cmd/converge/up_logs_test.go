package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func TestLastLines(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int64
		want string
	}{
		{"a\nb\nc\n", 2, "b\nc\n"},
		{"a\nb\nc", 2, "b\nc"},
		{"a\nb\n", 5, "a\nb\n"},
		{"a\nb\n", 0, ""},
		{"", 3, ""},
	} {
		if got := string(lastLines([]byte(c.in), c.n)); got != c.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A followed log hands out what is written after it was opened, and ends
// once the writer is gone and the rest is read.
func TestFollowedLogEndsWithItsContainer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.log")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var running atomic.Bool
	running.Store(true)
	tail := int64(1)
	rc, err := openLog(context.Background(), path, &tail, true, running.Load)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	go func() {
		time.Sleep(3 * followPoll)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("three\n")
		f.Close()
		time.Sleep(3 * followPoll)
		running.Store(false)
	}()
	got, err := io.ReadAll(rc)
	if err != nil || string(got) != "two\nthree\n" {
		t.Fatalf("followed log %q, %v", got, err)
	}
	if rc, _ := openLog(context.Background(), filepath.Join(t.TempDir(), "none.log"), nil, true, running.Load); rc == nil {
		t.Fatal("a log not written yet is not empty")
	}
}
