package main

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// converge --help lists every verb, each with a one-line summary.
func TestHelpListsEveryVerbWithOneLine(t *testing.T) {
	out, _, code := runConverge("--help")
	if code != 0 {
		t.Fatalf("converge --help: exit %d", code)
	}
	for _, verb := range []string{"check", "demo", "image", "init", "report", "trace", "up", "version"} {
		if _, ok := commands[verb]; !ok {
			t.Errorf("no %s command", verb)
		}
	}
	for name, c := range commands {
		if c.summary == "" || strings.Contains(c.summary, "\n") {
			t.Errorf("%s's summary %q is not one line", name, c.summary)
		}
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + ` +` + regexp.QuoteMeta(c.summary) + `$`).MatchString(out) {
			t.Errorf("converge --help lacks %s's line:\n%s", name, out)
		}
	}
}

// Every verb's --help shows at least one example, each a converge
// command line of that verb whose flags the verb (or its subcommand)
// defines, so an example cannot drift from the flags.
func TestEveryVerbsHelpHasExamples(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	flagRE := regexp.MustCompile(`^--?([a-z][a-z0-9-]*)`)
	for _, name := range names {
		out, errs, code := runConverge(name, "--help")
		help := out + errs
		if code != 0 {
			t.Errorf("converge %s --help: exit %d: %s", name, code, help)
			continue
		}
		if len(commands[name].examples) == 0 || !strings.Contains(help, "\nExamples:\n") {
			t.Errorf("converge %s --help shows no examples:\n%s", name, help)
			continue
		}
		for _, ex := range commands[name].examples {
			words := strings.Fields(ex)
			if len(words) < 2 || words[0] != "converge" || words[1] != name {
				t.Errorf("%s's example %q is not a converge %s command line", name, ex, name)
				continue
			}
			if !strings.Contains(help, "  "+ex+"\n") {
				t.Errorf("converge %s --help does not show %q", name, ex)
			}
			flags, of := help, name
			if len(words) > 2 && !strings.HasPrefix(words[2], "-") {
				sub, subErrs, code := runConverge(name, words[2], "--help")
				if code == 0 && strings.Contains(sub+subErrs, "Flags:") {
					flags, of = sub+subErrs, name+" "+words[2]
				}
			}
			for _, w := range words[2:] {
				if w == "--" {
					break // what follows is another program's command line
				}
				if m := flagRE.FindStringSubmatch(w); m != nil && !strings.Contains(flags, "  -"+m[1]+" ") && !strings.Contains(flags, "  -"+m[1]+"\n") {
					t.Errorf("%s's example %q uses -%s, which converge %s does not define", name, ex, m[1], of)
				}
			}
		}
	}
}
