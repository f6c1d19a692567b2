package scenarios_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Makefile's LONG_TESTS names exactly the tests that leave a part to
// the long suite (they call localtest.Long), and its LONG_PKGS exactly
// their packages: a test that does and is not listed, or whose package
// make test-long does not test, would never run that part, in make
// test-long or in CI.
func TestLongSuiteListsEveryLongTest(t *testing.T) {
	names, pkgs := testsCallingLong(t, "..")
	makefile, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	require.Equal(t, names, makeLongTests(t, makefile))
	require.Equal(t, pkgs, makeLongPkgs(t, makefile))
}

// makeLongPkgs reads the Makefile's LONG_PKGS, package paths relative to
// the module root (./scenarios ./adapters/dialects).
func makeLongPkgs(t *testing.T, makefile []byte) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^LONG_PKGS\s*:=\s*(.+)$`).FindSubmatch(makefile)
	require.NotNil(t, m, "the Makefile has no LONG_PKGS := ./pkg ...")
	pkgs := strings.Fields(string(m[1]))
	sort.Strings(pkgs)
	return pkgs
}

// makeLongTests reads the test names of the Makefile's LONG_TESTS, a
// regular expression ^(A|B|...)$.
func makeLongTests(t *testing.T, makefile []byte) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^LONG_TESTS\s*:=\s*\^\(([A-Za-z0-9_|]+)\)\$\$$`).FindSubmatch(makefile)
	require.NotNil(t, m, "the Makefile has no LONG_TESTS := ^(TestA|TestB)$$")
	names := strings.Split(string(m[1]), "|")
	sort.Strings(names)
	return names
}

// testsCallingLong lists the top-level tests under root whose body calls
// localtest.Long, and their packages (./dir, relative to root).
func testsCallingLong(t *testing.T, root string) (names, pkgs []string) {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Body != nil && strings.HasPrefix(fn.Name.Name, "Test") && callsLong(fn.Body) {
				names = append(names, fn.Name.Name)
				if dir := filepath.Dir(path); !seen[dir] {
					seen[dir] = true
					rel, err := filepath.Rel(root, dir)
					if err != nil {
						return err
					}
					pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	sort.Strings(names)
	sort.Strings(pkgs)
	return names, pkgs
}

func callsLong(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if ok && sel.Sel.Name == "Long" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "localtest" {
				found = true
			}
		}
		return !found
	})
	return found
}
