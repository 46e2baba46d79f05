package docs

import (
	"bufio"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const module = "setmatch"

// row is one row of a folder table of ARCHITECTURE.md.
type row struct {
	folders []string // package folders, without a trailing slash
	imports []string // the "may import" cell; nil when the table has none
	idea    []string // the code spans of the last cell, the idea
	table   int      // 0 for the first table (no imports), counting up
	line    int
}

// readTables returns the rows of every table of ARCHITECTURE.md whose
// first column is "folder".
func readTables() ([]row, error) {
	f, err := os.Open("ARCHITECTURE.md")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	table, inTable, hasImports := -1, false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case !inTable && cells[0] == "folder":
			inTable, hasImports = true, len(cells) == 3 && cells[1] == "may import"
			table++
			continue
		case !inTable, strings.HasPrefix(cells[0], "---"):
			continue
		}
		r := row{folders: codeSpans(cells[0]), idea: codeSpans(cells[len(cells)-1]), table: table, line: n}
		if hasImports {
			r.imports = codeSpans(cells[1])
			if r.imports == nil {
				r.imports = []string{}
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errors.New("ARCHITECTURE.md: no folder tables found")
	}
	return rows, nil
}

// codeSpans returns the `quoted` words of a cell, without trailing slashes.
func codeSpans(cell string) []string {
	var out []string
	parts := strings.Split(cell, "`")
	for i := 1; i < len(parts); i += 2 {
		out = append(out, strings.TrimSuffix(parts[i], "/"))
	}
	return out
}

// pkg is what the non-test files of a Go package of the repository
// import: import path → the files importing it.
type pkg map[string][]string

// decls is what the non-test files of a Go package of the repository
// declare, exported: top-level names, and "T.M" for each method M and
// struct field M of a type T.
type decls map[string]bool

// The page and the code, read once for all tests.
var (
	loadOnce sync.Once
	loaded   struct {
		pkgs  map[string]pkg
		decls map[string]decls
		rows  []row
		err   error
	}
)

// load returns the packages of the repository by folder and the rows of
// ARCHITECTURE.md's folder tables.
func load(t *testing.T) (map[string]pkg, []row) {
	t.Helper()
	loadOnce.Do(func() {
		loaded.pkgs, loaded.decls, loaded.err = readPackages()
		if loaded.err == nil {
			loaded.rows, loaded.err = readTables()
		}
	})
	if loaded.err != nil {
		t.Fatal(loaded.err)
	}
	return loaded.pkgs, loaded.rows
}

// readPackages parses the imports and the exported declarations of every
// non-test Go file below the repository root, whatever its build
// constraints.
func readPackages() (map[string]pkg, map[string]decls, error) {
	pkgs, all := map[string]pkg{}, map[string]decls{}
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		pk := pkgs[dir]
		if pk == nil {
			pk = pkg{}
			pkgs[dir] = pk
			all[dir] = decls{}
		}
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		all[dir].add(f)
		for _, im := range f.Imports {
			ip, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			pk[ip] = append(pk[ip], name)
		}
		return nil
	})
	return pkgs, all, err
}

// add records the exported declarations of f.
func (d decls) add(f *ast.File) {
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if !decl.Name.IsExported() {
				continue
			}
			if decl.Recv == nil {
				d[decl.Name.Name] = true
			} else if t := recvType(decl.Recv.List[0].Type); t != "" {
				d[t+"."+decl.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					if !spec.Name.IsExported() {
						continue
					}
					d[spec.Name.Name] = true
					if st, ok := spec.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								if n.IsExported() {
									d[spec.Name.Name+"."+n.Name] = true
								}
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						if n.IsExported() {
							d[n.Name] = true
						}
					}
				}
			}
		}
	}
}

// recvType returns the name of a method's receiver type, "" where it is
// not exported.
func recvType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			if t.IsExported() {
				return t.Name
			}
			return ""
		default:
			return ""
		}
	}
}

// has reports whether d declares the name of a row's own package: a
// top-level name, "T.M" (a method or field M of T), or M alone, a method
// or field of one of its types.
func (d decls) has(name string) bool {
	if d[name] {
		return true
	}
	if strings.Contains(name, ".") {
		return false
	}
	for k := range d {
		if _, m, ok := strings.Cut(k, "."); ok && m == name {
			return true
		}
	}
	return false
}

// internal returns the repository folders that p imports, sorted.
func (p pkg) internal() []string {
	var out []string
	for ip := range p {
		if rest, ok := strings.CutPrefix(ip, module+"/"); ok {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out
}

// TestArchitectureImports checks every row of ARCHITECTURE.md's folder
// tables against the imports of the code: the first table's folders import
// nothing of the repository, and a row's "may import" cell names exactly
// the repository folders its package imports (a cell entry "x/*" stands for
// any sub-folder of x, and must match at least one). Every package folder
// has a row, and so has every folder at the top of the repository, or
// folders in it have (cmd/, internal/), but hidden ones and those the
// .gitignore ignores (what the Makefile builds).
func TestArchitectureImports(t *testing.T) {
	pkgs, rows := load(t)
	documented := map[string]row{}
	for _, r := range rows {
		for _, f := range r.folders {
			documented[f] = r
		}
	}
	for dir := range pkgs {
		if _, ok := documented[dir]; !ok && dir != "." {
			t.Errorf("package folder %s is in no table of ARCHITECTURE.md: add a row saying what it is for", dir)
		}
	}
	ignored, err := topIgnored()
	if err != nil {
		t.Fatal(err)
	}
	top, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range top {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || ignored[name] {
			continue
		}
		_, ok := documented[name]
		for f := range documented {
			ok = ok || strings.HasPrefix(f, name+"/")
		}
		if !ok {
			t.Errorf("folder %s/ is in no table of ARCHITECTURE.md: add a row saying what it is for", name)
		}
	}
	for _, r := range rows {
		for _, f := range r.folders {
			p := pkgs[f]
			if p == nil {
				if r.imports != nil || r.table == 0 {
					t.Errorf("ARCHITECTURE.md:%d: %s is no Go package folder of the repository", r.line, f)
				}
				continue
			}
			got := p.internal()
			switch {
			case r.table == 0:
				if len(got) > 0 {
					t.Errorf("ARCHITECTURE.md:%d: %s is in the bottom layer (no imports inside the project) but imports %v", r.line, f, got)
				}
			case r.imports != nil:
				checkImports(t, r, f, got)
			}
		}
	}
}

// topIgnored returns the folders at the top of the repository that its
// .gitignore ignores ("/bin/").
func topIgnored() (map[string]bool, error) {
	b, err := os.ReadFile("../.gitignore")
	if err != nil {
		return nil, err
	}
	ignored := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(line, "/"); ok {
			if name, ok := strings.CutSuffix(name, "/"); ok && !strings.Contains(name, "/") {
				ignored[name] = true
			}
		}
	}
	return ignored, nil
}

func checkImports(t *testing.T, r row, folder string, got []string) {
	t.Helper()
	used := map[string]bool{}
	for _, im := range got {
		ok := false
		for _, want := range r.imports {
			if prefix, wild := strings.CutSuffix(want, "/*"); wild {
				if strings.HasPrefix(im, prefix+"/") {
					ok, used[want] = true, true
				}
			} else if im == want {
				ok, used[want] = true, true
			}
		}
		if !ok {
			t.Errorf("ARCHITECTURE.md:%d: %s imports %s, which its row does not name", r.line, folder, im)
		}
	}
	for _, want := range r.imports {
		if !used[want] {
			t.Errorf("ARCHITECTURE.md:%d: %s's row names %s, which it does not import", r.line, folder, want)
		}
	}
}

// TestArchitectureNoUpwardImports checks the first rule under the tables:
// no folder imports one that stands in a later table.
func TestArchitectureNoUpwardImports(t *testing.T) {
	pkgs, rows := load(t)
	table := map[string]int{}
	for _, r := range rows {
		for _, f := range r.folders {
			table[f] = r.table
		}
	}
	for dir, p := range pkgs {
		for _, im := range p.internal() {
			if ti, ok := table[im]; ok && ti > table[dir] {
				t.Errorf("%s (table %d of ARCHITECTURE.md) imports %s, from the later table %d", dir, table[dir]+1, im, ti+1)
			}
		}
	}
}

// TestArchitectureIO checks the I/O rules under the tables.
func TestArchitectureIO(t *testing.T) {
	pkgs, _ := load(t)
	io := []string{"os", "io/fs", "path/filepath", "net", "os/exec"}
	allowed := map[string][]string{
		"model":    {"file.go", "owner_unix.go", "owner_other.go"},
		"features": {"decode.go", "burst.go", "frame.go", "fitted.go"},
	}
	for _, dir := range []string{"match", "kfda", "pca", "setkernel", "grassmann", "learn", "method", "eval", "deploy", "model", "modelinfo", "features", "fisher", "openset", "openeval"} {
		p := pkgs[dir]
		if p == nil {
			t.Errorf("no package %s", dir)
			continue
		}
		for _, ip := range io {
			for _, file := range p[ip] {
				if !slices.Contains(allowed[dir], file) {
					t.Errorf("%s imports %q: ARCHITECTURE.md says this package does no I/O there (do it in a main, or in the files it names)", path.Join(dir, file), ip)
				}
			}
		}
	}
}

// TestArchitectureDeviceParts checks that the appliance's parts (the
// folders right below device/ that ARCHITECTURE.md names, but the tests'
// helpers, whose names end in "test") import neither each other nor
// device.
func TestArchitectureDeviceParts(t *testing.T) {
	pkgs, rows := load(t)
	var parts []string
	for _, r := range rows {
		for _, f := range r.folders {
			if rest, ok := strings.CutPrefix(f, "device/"); ok && !strings.Contains(rest, "/") && !strings.HasSuffix(rest, "test") {
				parts = append(parts, f)
			}
		}
	}
	if len(parts) == 0 {
		t.Fatal("ARCHITECTURE.md names no device/ part")
	}
	for _, part := range parts {
		p := pkgs[part]
		if p == nil {
			continue // reported by TestArchitectureImports
		}
		for _, im := range p.internal() {
			if im == "device" || (slices.Contains(parts, im) && im != part) {
				t.Errorf("%s imports %s: the parts of device/ import neither each other nor device", part, im)
			}
		}
	}
}

var (
	// fileRE is a file a row names: a name with the extension of the
	// repository's sources, scripts or configuration files.
	fileRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(go|sh|py|toml|example)$`)
	// nameRE is a Go name: X, T.M, pkg.X or pkg.T.M.
	nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*(\.[A-Z][A-Za-z0-9]*){0,2}$`)
)

// TestArchitectureNames checks the files and the Go names ARCHITECTURE.md
// names in code spans. A file of a row (`x.go`) is in one of the row's
// folders, and a path anywhere on the page (`dir/x.go`) is a file of the
// repository. A name of a row without a package (`X`, `T.M`) is declared,
// exported, by the row's package (M alone may be a method or a field of
// one of its types); a name with a package anywhere on the page (`pkg.X`,
// `pkg.T.M`) is declared by the repository's package of that name, X at
// the top level. A word that is no package of the repository (`os.Root`)
// is not checked.
func TestArchitectureNames(t *testing.T) {
	_, rows := load(t)
	all := loaded.decls
	byName := map[string][]string{} // package name → its folders
	for dir := range all {
		byName[path.Base(dir)] = append(byName[path.Base(dir)], dir)
	}
	// qualified reports whether span is a name with a package of the
	// repository, and whether that package declares it.
	qualified := func(span string) (isName, ok bool) {
		if !nameRE.MatchString(span) || !strings.Contains(span, ".") {
			return false, false
		}
		p, name, _ := strings.Cut(span, ".")
		dirs := byName[p]
		if len(dirs) == 0 || strings.ToUpper(p[:1]) == p[:1] {
			return false, false
		}
		for _, dir := range dirs {
			if all[dir][name] {
				return true, true
			}
		}
		return true, false
	}

	for _, r := range rows {
		for _, span := range r.idea {
			switch {
			case fileRE.MatchString(span):
				found := false
				for _, f := range r.folders {
					if fi, err := os.Stat(filepath.Join("..", f, span)); err == nil && !fi.IsDir() {
						found = true
					}
				}
				if !found {
					t.Errorf("ARCHITECTURE.md:%d: %s is no file of %s", r.line, span, strings.Join(r.folders, ", "))
				}
			case nameRE.MatchString(span) && strings.ToUpper(span[:1]) == span[:1]:
				found := false
				for _, f := range r.folders {
					if all[f] != nil && all[f].has(span) {
						found = true
					}
				}
				if !found {
					t.Errorf("ARCHITECTURE.md:%d: %s is declared by no package of %s (a name of another package takes its name: pkg.%s)", r.line, span, strings.Join(r.folders, ", "), span)
				}
			}
		}
	}

	page, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(page), "`")
	line := 1
	for i, part := range parts {
		if i%2 == 1 {
			span := strings.TrimSuffix(strings.ReplaceAll(part, "\n", " "), "/")
			if isName, ok := qualified(span); isName && !ok {
				t.Errorf("ARCHITECTURE.md:%d: %s is not declared by package %s (a method or field takes its type: pkg.T.M)", line, span, span[:strings.Index(span, ".")])
			}
			if strings.Contains(span, "/") && fileRE.MatchString(path.Base(span)) && !strings.ContainsAny(span, " ") {
				if fi, err := os.Stat(filepath.Join("..", filepath.FromSlash(span))); err != nil || fi.IsDir() {
					t.Errorf("ARCHITECTURE.md:%d: %s is no file of the repository", line, span)
				}
			}
		}
		line += strings.Count(part, "\n")
	}
}
