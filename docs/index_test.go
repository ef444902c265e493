package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink is a Markdown link's target, up to an optional #fragment.
var mdLink = regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)

// TestIndex checks that docs/README.md names every document in docs/
// with a link, and that the project's README stays a first read.
func TestIndex(t *testing.T) {
	index, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, m := range mdLink.FindAllSubmatch(index, -1) {
		linked[string(m[1])] = true
	}
	docs, _ := filepath.Glob("*.md")
	if len(docs) < 10 {
		t.Fatalf("found %d documents in docs/: the glob is broken", len(docs))
	}
	for _, d := range docs {
		if d != "README.md" && !linked[d] {
			t.Errorf("docs/README.md does not link %s: add a line for it", d)
		}
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(readme, []byte("\n")); n > 300 {
		t.Errorf("README.md has %d lines: keep it to 300, move the rest into docs/ and link it from docs/README.md", n)
	}
}

// TestLinks checks that every relative link of the README and the docs
// names a file that exists.
func TestLinks(t *testing.T) {
	files, _ := filepath.Glob("*.md")
	files = append(files, "../README.md")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllSubmatch(data, -1) {
			target := string(m[1])
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links %s, which does not exist", f, target)
			}
		}
	}
}
