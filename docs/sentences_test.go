// Package docs holds no code: only this test, which keeps the prose of the
// front pages plain. `go test ./...` (make check, make test) runs it.
package docs

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The pages a newcomer reads first (the front pages, the package's README and
// the reference they link to), and the limits their sentences keep: a
// sentence a user can read aloud in one breath.
var plainPages = []string{"../README.md", "../CONTRIBUTING.md", "../js/README.md", "api.md", "gateway.md", "ledger.md", "browsers.md", "nextjs.md", "architecture.md", "contract.md", "reliability.md", "matrix.md", "policies.md"}

const (
	maxMedianWords   = 20
	maxSentenceWords = 60
)

var (
	inlineCode = regexp.MustCompile("`[^`]*`")
	link       = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	listItem   = regexp.MustCompile(`^\s*([-*+]|\d+\.)\s+`)
	// A sentence ends at . ! or ? followed by a space (or the paragraph's end);
	// "e.g." and "i.e." do not end one.
	abbreviation = regexp.MustCompile(`\b(e\.g|i\.e|etc|vs)\.`)
	sentenceEnd  = regexp.MustCompile(`[.!?]+["')\]]*\s+`)
)

// paragraphs returns the prose of a markdown page: fenced code blocks, tables,
// headings and HTML lines left out; a list item starts a paragraph of its own.
func paragraphs(md string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(trimmed, "```"), strings.HasPrefix(trimmed, "~~~"):
			flush()
			fence = trimmed[:3]
		case trimmed == "", strings.HasPrefix(trimmed, "|"), strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "<"):
			flush()
		case listItem.MatchString(line):
			flush()
			cur = append(cur, listItem.ReplaceAllString(line, ""))
		default:
			cur = append(cur, trimmed)
		}
	}
	flush()
	return out
}

// sentences splits prose into sentences; inline code counts as one word.
func sentences(md string) []string {
	var out []string
	for _, p := range paragraphs(md) {
		p = inlineCode.ReplaceAllString(p, "code")
		p = link.ReplaceAllString(p, "$1")
		p = abbreviation.ReplaceAllString(p, "$1")
		for _, s := range sentenceEnd.Split(p+" ", -1) {
			if words(s) > 0 {
				out = append(out, strings.TrimSpace(s))
			}
		}
	}
	return out
}

// words counts the tokens of s that hold a letter or a digit.
func words(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, isWordRune) >= 0 {
			n++
		}
	}
	return n
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func TestSentencesArePlain(t *testing.T) {
	for _, page := range plainPages {
		md, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		ss := sentences(string(md))
		if len(ss) == 0 {
			t.Fatalf("%s: no sentences found", page)
		}
		counts := make([]int, len(ss))
		for i, s := range ss {
			counts[i] = words(s)
			if counts[i] > maxSentenceWords {
				t.Errorf("%s: a sentence of %d words (at most %d): %q", page, counts[i], maxSentenceWords, s)
			}
		}
		slices.Sort(counts)
		median := counts[len(counts)/2]
		if len(counts)%2 == 0 {
			median = (counts[len(counts)/2-1] + counts[len(counts)/2] + 1) / 2
		}
		t.Logf("%s: %d sentences, median %d words, longest %d", page, len(ss), median, counts[len(counts)-1])
		if median > maxMedianWords {
			t.Errorf("%s: the median sentence has %d words (at most %d)", page, median, maxMedianWords)
		}
	}
}

func TestSentenceSplitting(t *testing.T) {
	md := "# Title\n\nOne two three. Four, e.g. five `a. b` six!\n\n| a. b | c |\n\n```js\nx. y\n```\n- item one\n- item two. Three\n"
	want := []string{"One two three", "Four, e.g five code six", "item one", "item two", "Three"}
	if got := sentences(md); !slices.Equal(got, want) {
		t.Errorf("sentences = %q, want %q", got, want)
	}
}
