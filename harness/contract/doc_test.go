package contract_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/outboxchaos/outboxchaos/harness/contract"
	"github.com/stretchr/testify/require"
)

// contractDoc is the contract as users read it; schema.sql is its section 1.
const contractDoc = "docs/contract.md"

var sqlBlock = regexp.MustCompile("(?s)```sql\n(.*?)```")

// createTables returns the CREATE TABLE statements of sql, each with its
// whitespace collapsed to single spaces, in order.
func createTables(sql string) []string {
	var out []string
	for _, s := range strings.Split(sql, ";") {
		s = strings.Join(strings.Fields(s), " ")
		if strings.HasPrefix(strings.ToUpper(s), "CREATE TABLE") {
			out = append(out, s)
		}
	}
	return out
}

// docTables returns the CREATE TABLE statements of every ```sql block of a
// markdown text.
func docTables(md string) []string {
	var out []string
	for _, m := range sqlBlock.FindAllStringSubmatch(md, -1) {
		out = append(out, createTables(m[1])...)
	}
	return out
}

// The schema printed in docs/contract.md is schema.sql, statement for
// statement: the page users read and the tables the harness creates cannot
// drift apart.
func TestContractDocSchemaIsSchemaSQL(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(repoRoot(t), contractDoc))
	require.NoError(t, err, "the contract is part of the repository")
	got := docTables(string(md))
	want := createTables(contract.SchemaSQL)
	require.Len(t, want, 2, "schema.sql holds the two tables")
	require.Equal(t, want, got, "the ```sql block of %s differs from harness/contract/schema.sql: change both together", contractDoc)
}

func TestDocTablesReadsEverySQLBlock(t *testing.T) {
	md := "x\n```sql\nCREATE TABLE a (\n  id INT\n);\n```\ntext\n```sql\ncreate table b (id INT); SELECT 1;\n```\n```go\nCREATE TABLE c\n```\n"
	require.Equal(t, []string{"CREATE TABLE a ( id INT )", "create table b (id INT)"}, docTables(md))
}

// section is one "## N. Title" heading of a numbered doc and the numbered
// steps ("1. ...", at the start of a line) under it.
type section struct {
	slug  string
	steps map[int]bool
}

var (
	headingLine = regexp.MustCompile(`^## (\d+)\. (.+)$`)
	stepLine    = regexp.MustCompile(`^(\d+)\. `)
	anyHeading  = regexp.MustCompile(`^#+ (.+)$`)
	slugDrop    = regexp.MustCompile(`[^a-z0-9 _-]`)
)

// slug is the anchor a markdown renderer gives a heading: lower case,
// punctuation dropped, spaces turned into '-'.
func slug(title string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(title), ""), " ", "-")
}

// numberedDoc reads a doc's numbered sections and every heading's anchor.
func numberedDoc(md string) (map[int]section, map[string]bool) {
	sections := map[int]section{}
	anchors := map[string]bool{}
	cur := -1
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		if m := anyHeading.FindStringSubmatch(line); m != nil {
			anchors[slug(m[1])] = true
			cur = -1
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			cur, _ = strconv.Atoi(m[1])
			sections[cur] = section{slug: slug(m[1] + ". " + m[2]), steps: map[int]bool{}}
			continue
		}
		if m := stepLine.FindStringSubmatch(line); m != nil && cur >= 0 {
			n, _ := strconv.Atoi(m[1])
			sections[cur].steps[n] = true
		}
	}
	return sections, anchors
}

var (
	// citation is "docs/contract.md §2 step 5" (the docs/ is left out inside docs/).
	citation = regexp.MustCompile(`(?:docs/)?(contract|bullmq)\.md,? §(\d+)(?: step (\d+))?`)
	// anchorLink is a markdown link into a numbered doc: "(contract.md#2-what-...)".
	anchorLink = regexp.MustCompile(`\((?:\.\./)*(?:docs/)?(contract|bullmq)\.md#([^)\s]+)\)`)
	// docsPath is a path into docs/ named anywhere.
	docsPath = regexp.MustCompile(`\bdocs/[A-Za-z0-9_-]+\.md\b`)
	// mdLink is a markdown link's target in a .md file.
	mdLink = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)\s]*)?\)`)
	// stale are the ways the contract was cited before it was in the
	// repository, or without the section sign readers can follow.
	stale = regexp.MustCompile(`shared/contract\.md|bullmq-` + `wire|contract section \d|contract\.md,? section|contract\.md, \d|contract §\d`)
	// bare is a numbered doc named without its folder, which outside docs/
	// leaves a reader guessing where it is.
	bare = regexp.MustCompile(`(?:^|[^/\w.-])((?:contract|bullmq)\.md)`)
)

// textFile tells the tracked files whose citations are checked.
func textFile(name string) bool {
	switch path.Ext(name) {
	case ".go", ".md", ".js", ".ts", ".yaml", ".yml", ".json", ".html", ".sql", ".txt", ".sh":
		return true
	}
	return path.Base(name) == "Makefile" || strings.HasPrefix(name, ".ci/")
}

// Every citation of docs/contract.md or docs/bullmq.md in the repository
// names a section (and a step) the page has, every docs/ page named exists,
// every relative link of a markdown file resolves, and no stale form of
// citation is left.
func TestCitationsResolve(t *testing.T) {
	root := repoRoot(t)
	files := trackedFiles(t, root)
	tracked := map[string]bool{}
	for _, f := range files {
		tracked[f] = true
	}
	docs := map[string]map[int]section{}
	anchors := map[string]map[string]bool{}
	for _, name := range []string{"contract", "bullmq"} {
		md, err := os.ReadFile(filepath.Join(root, "docs", name+".md"))
		require.NoError(t, err)
		docs[name], anchors[name] = numberedDoc(string(md))
		require.NotEmpty(t, docs[name], "docs/%s.md has numbered sections", name)
	}
	var bad []string
	for _, f := range files {
		if !textFile(f) || f == "harness/contract/doc_test.go" {
			continue
		}
		body, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue
		}
		require.NoError(t, err)
		for i, line := range strings.Split(string(body), "\n") {
			for _, p := range lineProblems(line, f, docs, anchors, tracked, root) {
				bad = append(bad, fmt.Sprintf("%s:%d: %s", f, i+1, p))
			}
		}
	}
	if len(bad) > 0 {
		t.Fatalf("%d citations do not resolve (cite as docs/contract.md §N step M):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// lineProblems says what does not resolve on one line of file f.
func lineProblems(line, f string, docs map[string]map[int]section, anchors map[string]map[string]bool, tracked map[string]bool, root string) []string {
	var out []string
	if m := stale.FindString(line); m != "" {
		out = append(out, fmt.Sprintf("stale citation %q: cite docs/contract.md §N (or docs/bullmq.md §N)", m))
	}
	if m := bare.FindStringSubmatch(line); m != nil && !strings.HasPrefix(f, "docs/") {
		out = append(out, fmt.Sprintf("%s named without its folder: write docs/%s", m[1], m[1]))
	}
	for _, m := range citation.FindAllStringSubmatch(line, -1) {
		n, _ := strconv.Atoi(m[2])
		sec, ok := docs[m[1]][n]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%q: docs/%s.md has no section %d", m[0], m[1], n))
		case m[3] != "":
			if s, _ := strconv.Atoi(m[3]); !sec.steps[s] {
				out = append(out, fmt.Sprintf("%q: section %d of docs/%s.md has no step %s", m[0], n, m[1], m[3]))
			}
		}
	}
	for _, m := range anchorLink.FindAllStringSubmatch(line, -1) {
		if !anchors[m[1]][m[2]] {
			out = append(out, fmt.Sprintf("link %q: docs/%s.md has no heading with that anchor", m[0], m[1]))
		}
	}
	for _, p := range docsPath.FindAllString(line, -1) {
		if !tracked[p] {
			out = append(out, fmt.Sprintf("%s is named but not in the repository", p))
		}
	}
	if path.Ext(f) == ".md" {
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, path.Dir(f), target)); err != nil {
				out = append(out, fmt.Sprintf("link %q does not resolve from %s", target, path.Dir(f)))
			}
		}
	}
	return out
}

func TestLineProblemsCatchesWhatDoesNotResolve(t *testing.T) {
	docs := map[string]map[int]section{"contract": {2: {slug: "2-what-a-dispatcher-must-do", steps: map[int]bool{5: true}}}}
	anchors := map[string]map[string]bool{"contract": {"2-what-a-dispatcher-must-do": true}}
	tracked := map[string]bool{"docs/contract.md": true}
	check := func(line string) []string { return lineProblems(line, "x.go", docs, anchors, tracked, t.TempDir()) }
	require.Empty(t, check("// docs/contract.md §2 step 5: backoff"))
	require.Empty(t, check("see [it](docs/contract.md#2-what-a-dispatcher-must-do)"))
	require.Len(t, check("docs/contract.md §3"), 1)
	require.Len(t, check("docs/contract.md §2 step 9"), 1)
	require.Len(t, check("(docs/contract.md#9-nothing)"), 1)
	require.Len(t, check("docs/missing.md"), 1)
	require.Len(t, check("contract section 2 step 5"), 1)
	require.Len(t, check("../shared/contract.md"), 1)
	require.Len(t, check("as contract.md fixes it"), 1)
	require.Empty(t, lineProblems("[it](contract.md#2-what-a-dispatcher-must-do)", "docs/x.md", docs, anchors, tracked, repoRoot(t)))
	require.Len(t, lineProblems("[a](nowhere.md)", "docs/x.md", docs, anchors, tracked, t.TempDir()), 1)
}

func TestNumberedDocReadsSectionsAndSteps(t *testing.T) {
	md := "# T\n## Contents\n1. [a](#1-a)\n## 1. A\ntext\n## 2. What a dispatcher must do\n1. **Claim.** x\n   more\n2. y\n```text\n## 9. not a heading\n```\n## Notes\n3. not a step\n"
	secs, anchors := numberedDoc(md)
	require.Len(t, secs, 2)
	require.Equal(t, "2-what-a-dispatcher-must-do", secs[2].slug)
	require.Equal(t, map[int]bool{1: true, 2: true}, secs[2].steps)
	require.Empty(t, secs[1].steps)
	require.True(t, anchors["notes"])
	require.True(t, anchors["2-what-a-dispatcher-must-do"])
}
