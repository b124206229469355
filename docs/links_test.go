package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// markdownLink matches an inline link's target: [text](target).
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// link is a relative link: the file it names ("" for the linking file
// itself) and its #fragment, if any.
type link struct{ file, fragment string }

// relativeLinks returns the relative links of a Markdown text; links to
// the web and mail links are left out.
func relativeLinks(text string) []link {
	var links []link
	for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, fragment, _ := strings.Cut(target, "#")
		links = append(links, link{file, fragment})
	}
	return links
}

// anchors returns the anchors GitHub makes of a Markdown text's headings:
// lower case, spaces to hyphens, punctuation other than - and _ dropped.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		out[b.String()] = true
	}
	return out
}

// Every relative link in README.md and docs/*.md names a file that exists,
// resolved from the linking file's directory as GitHub resolves it, and a
// #fragment into a Markdown file names one of its headings.
func TestRelativeLinksResolve(t *testing.T) {
	for _, doc := range documents(t) {
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range relativeLinks(string(text)) {
			path := filepath.Join(root, doc)
			if l.file != "" {
				path = filepath.Join(root, filepath.Dir(doc), filepath.FromSlash(l.file))
			}
			target, err := os.ReadFile(path)
			if err != nil {
				if _, statErr := os.Stat(path); statErr != nil {
					t.Errorf("%s links to %s, which does not exist", doc, l.file)
				}
				continue
			}
			if l.fragment != "" && strings.HasSuffix(path, ".md") && !anchors(string(target))[l.fragment] {
				t.Errorf("%s links to %s#%s, which has no such heading", doc, l.file, l.fragment)
			}
		}
	}
}

func TestRelativeLinksParse(t *testing.T) {
	got := relativeLinks("see [a](docs/a.md#x), [b](https://x.io/b), [c](#top) and [d](../README.md)")
	want := []link{{"docs/a.md", "x"}, {"", "top"}, {"../README.md", ""}}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	a := anchors("# Title\n## converge up: the real `kubectl`\n```\n# not a heading\n```\n### Bug classes and what catches them\n")
	for _, want := range []string{"title", "converge-up-the-real-kubectl", "bug-classes-and-what-catches-them"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Errorf("a comment in a code block made an anchor: %v", a)
	}
}
