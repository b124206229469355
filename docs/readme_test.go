package docs

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// root is the repository's root, where README.md is.
const root = ".."

// runnableTimeout bounds one command of a runnable block.
const runnableTimeout = 5 * time.Minute

const runnableMarker = "<!-- runnable -->"

// budgets cut what a README command spends, for the test run.
var budgets = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`-rapid\.checks=\d+`), "-rapid.checks=3"},
	{regexp.MustCompile(`-rapid\.steps=\d+`), "-rapid.steps=20"},
	{regexp.MustCompile(`\bFUZZTIME=\S+`), "FUZZTIME=1s"},
}

// runnableCommands returns the commands of every block marked runnable,
// in order, with the line each starts on.
func runnableCommands(t *testing.T, readme string) (cmds []string, lines []int) {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	marked, in, n, start := false, false, 0, 0
	cur := ""
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case !in && trimmed == runnableMarker:
			marked = true
		case !in && strings.HasPrefix(trimmed, "```"):
			in = marked
			marked = false
			if in && trimmed != "```sh" && trimmed != "```bash" {
				t.Fatalf("%s:%d: a runnable block must be ```sh or ```bash, not %s", filepath.Base(readme), n, trimmed)
			}
		case in && strings.HasPrefix(trimmed, "```"):
			in = false
		case in:
			if cur == "" {
				start = n
			}
			cur += strings.TrimSuffix(line, `\`)
			if strings.HasSuffix(line, `\`) {
				cur += " "
				continue
			}
			if c := strings.TrimSpace(cur); c != "" && !strings.HasPrefix(c, "#") {
				cmds, lines = append(cmds, c), append(lines, start)
			}
			cur = ""
		default:
			if trimmed != "" {
				marked = false // the marker belongs to the very next block
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds, lines
}

// cutBudgets rewrites a command's budgets for the test run.
func cutBudgets(cmd string) string {
	for _, b := range budgets {
		cmd = b.re.ReplaceAllString(cmd, b.with)
	}
	return cmd
}

// documents returns README.md and every guide in docs/, relative to root.
func documents(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"README.md"}
	for _, g := range guides {
		rel, err := filepath.Rel(root, g)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, rel)
	}
	return docs
}

func TestReadmeRunnableBlocksRun(t *testing.T) {
	type command struct {
		doc, cmd string
		line     int
	}
	var all []command
	for _, doc := range documents(t) {
		cmds, lines := runnableCommands(t, filepath.Join(root, doc))
		if doc == "README.md" && len(cmds) < 2 {
			t.Fatalf("README.md has %d runnable commands; the marked blocks are gone", len(cmds))
		}
		for i, c := range cmds {
			all = append(all, command{doc, c, lines[i]})
		}
	}
	if len(all) < 5 {
		t.Fatalf("the documents have %d runnable commands; the marked blocks are gone", len(all))
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "converge"), "./cmd/converge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building converge: %v\n%s", err, out)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range all {
		if strings.Contains(c.cmd, "make test") || strings.Contains(c.cmd, "make lint") {
			t.Fatalf("%s:%d: %q runs the test run itself; do not mark it runnable", c.doc, c.line, c.cmd)
		}
		run := cutBudgets(c.cmd)
		name := strings.TrimSuffix(filepath.Base(c.doc), ".md") + "/line" + strconv.Itoa(c.line)
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), runnableTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", run)
			cmd.Dir, cmd.Env = root, env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s:%d: %s: %v\n%s", c.doc, c.line, run, err, out)
			}
			if strings.Contains(string(out), "no tests to run") {
				t.Fatalf("%s:%d: %s matches no test:\n%s", c.doc, c.line, run, out)
			}
		})
	}
}

// The marker takes the next block only, continuation lines join, comments
// and blank lines are not commands, and budgets are cut.
func TestRunnableCommandsParse(t *testing.T) {
	readme := filepath.Join(t.TempDir(), "README.md")
	text := "intro\n" + runnableMarker + "\n```sh\ngo test ./x -rapid.checks=2000 \\\n    -rapid.steps=200   # long\n\n# a comment\nmake demo\n```\n" +
		"```sh\nnot marked\n```\n" + runnableMarker + "\ntext between\n```sh\nnot marked either\n```\n"
	if err := os.WriteFile(readme, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, lines := runnableCommands(t, readme)
	want := []string{"go test ./x -rapid.checks=2000      -rapid.steps=200   # long", "make demo"}
	if strings.Join(cmds, "|") != strings.Join(want, "|") || lines[0] != 4 || lines[1] != 8 {
		t.Fatalf("got %q at %v, want %q at [4 8]", cmds, lines, want)
	}
	if got := cutBudgets(cmds[0]); got != "go test ./x -rapid.checks=3      -rapid.steps=20   # long" {
		t.Fatalf("budgets not cut: %q", got)
	}
}
