// Command facts prints the facts kguest's generator needs about Kubernetes'
// Go API types, read from the Go source of the k8s.io/api and
// k8s.io/apimachinery modules this module pins (so the tables in
// xtask/data/ are checked against one exact release, not inferred):
//
//	facts nullable DIR...  the Go pointer fields of every API struct
//	facts jsontags DIR...  the json tag options that differ from omitempty
//	facts inline DIR...    the fields embedded with `json:",inline"`
//	facts jsonnames DIR... the fields whose JSON name is not their proto name
//	facts order DIR...     the field order of structs whose Go order is not
//	                       the protobuf number order (encoding/json writes
//	                       fields in Go order)
//
// Each DIR is a module root (`go mod download -json` prints it); every
// package below it that holds generated.proto is read. Output lines are
// "<proto message> <proto field>[:<option>] ...", sorted, one per message.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

func main() {
	tables := map[string]bool{"nullable": true, "jsontags": true, "inline": true, "jsonnames": true, "order": true}
	if len(os.Args) < 3 || !tables[os.Args[1]] {
		fmt.Fprintln(os.Stderr, "usage: facts nullable|jsontags|inline|jsonnames|order MODULE_DIR...")
		os.Exit(2)
	}
	table := map[string][]string{}
	for _, root := range os.Args[2:] {
		if err := readModule(root, os.Args[1], table); err != nil {
			fmt.Fprintln(os.Stderr, "facts:", err)
			os.Exit(1)
		}
	}
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Println(strings.TrimSpace(name + " " + strings.Join(table[name], " ")))
	}
}

// readModule reads every API package of the module at root. The proto
// package of a Go package is its import path with dots for slashes.
func readModule(root, which string, table map[string][]string) error {
	modPath, err := modulePath(root)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() != "generated.proto" {
			return nil
		}
		dir := filepath.Dir(path)
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return err
		}
		protoPackage := strings.ReplaceAll(modPath+"/"+filepath.ToSlash(rel), "/", ".")
		return readPackage(dir, protoPackage, which, table)
	})
}

func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod names no module", root)
}

func readPackage(dir, protoPackage, which string, table map[string][]string) error {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range parsed.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				message := protoPackage + "." + ts.Name.Name
				fields, any := structFacts(st, which)
				if any {
					table[message] = append(table[message], fields...)
				}
			}
		}
	}
	return nil
}

// structFacts lists the facts of one struct's protobuf fields; any says
// whether the struct has protobuf fields at all (a message).
func structFacts(st *ast.StructType, which string) (out []string, any bool) {
	numbers := []int{}
	for _, field := range st.Fields.List {
		if field.Tag == nil {
			continue
		}
		raw, err := strconv.Unquote(field.Tag.Value)
		if err != nil {
			continue
		}
		tag := reflect.StructTag(raw)
		protoTag := tag.Get("protobuf")
		if protoTag == "" || protoTag == "-" {
			continue
		}
		name := protoName(protoTag, field)
		any = true
		if which == "order" {
			out = append(out, name)
			numbers = append(numbers, protoNumber(protoTag))
			continue
		}
		jsonName, options, _ := strings.Cut(tag.Get("json"), ",")
		opts := strings.Split(options, ",")
		// encoding/json promotes the fields of an embedded struct without a
		// JSON name: k8s.io/api tags those `json:",inline"` up to 1.36 and
		// `json:""` from 1.37 (an embedded field with no json tag at all,
		// meta/v1's Duration, has its own JSON form).
		_, tagged := tag.Lookup("json")
		inline := has(opts, "inline") || (len(field.Names) == 0 && tagged && jsonName == "")
		switch which {
		case "nullable":
			if _, pointer := field.Type.(*ast.StarExpr); pointer {
				out = append(out, name)
			}
		case "inline":
			if inline {
				out = append(out, name)
			}
		case "jsonnames":
			if !inline && jsonName != "-" && jsonName != "" && jsonName != name {
				out = append(out, name+":"+jsonName)
			}
		case "jsontags":
			if inline || jsonName == "-" {
				continue
			}
			switch {
			case has(opts, "omitzero"):
				out = append(out, name+":omitzero")
			case !has(opts, "omitempty"):
				out = append(out, name)
			}
		}
	}
	if which == "order" && sort.IntsAreSorted(numbers) {
		out = nil
	}
	return out, any
}

// protoNumber is the field number in a protobuf struct tag
// ("bytes,3,opt,name=x").
func protoNumber(tag string) int {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}

// protoName is the name= part of a protobuf struct tag; without one (an
// embedded struct tagged only with its number) go-to-protobuf names the
// field after the Go field, first letter lowered.
func protoName(tag string, field *ast.Field) string {
	for _, part := range strings.Split(tag, ",") {
		if name, ok := strings.CutPrefix(part, "name="); ok {
			return name
		}
	}
	goName := ""
	switch {
	case len(field.Names) > 0:
		goName = field.Names[0].Name
	default:
		goName = embeddedName(field.Type)
	}
	if goName == "" {
		return ""
	}
	return strings.ToLower(goName[:1]) + goName[1:]
}

// embeddedName is the type name of an embedded field (T, *T, pkg.T).
func embeddedName(expr ast.Expr) string {
	switch t := expr.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

func has(list []string, want string) bool {
	for _, s := range list {
		if s == want {
			return true
		}
	}
	return false
}
