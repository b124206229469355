package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// calendarDate matches a date as the measurement history writes it.
var calendarDate = regexp.MustCompile(`\b20\d\d-[01]\d-[0-3]\d\b`)

// datedDocument is the one document where dates belong: the
// performance guide's measurement history. The others say what converge
// does now, in the present tense; its history goes in CHANGELOG.md.
const datedDocument = "docs/performance.md"

func TestOnlyThePerformanceGuideHasDates(t *testing.T) {
	for _, doc := range documents(t) {
		if filepath.ToSlash(doc) == datedDocument {
			continue
		}
		text, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if d := calendarDate.FindString(line); d != "" {
				t.Errorf("%s:%d: the date %s belongs in %s's history or in CHANGELOG.md", doc, i+1, d, datedDocument)
			}
		}
	}
}
