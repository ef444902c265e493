// Package ruleyaml reads rule files written in YAML into the types of
// package rules. It is kept apart from rules so that the shim, which runs
// the built-in rules decoded at build time, links no YAML decoder.
package ruleyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/rules"
	"go.yaml.in/yaml/v3"
)

// Decode decodes one rule file strictly: an unknown key, a wrong type or
// an unsupported version is a *[rules.LoadError] with the file and line.
func Decode(name string, data []byte) (*rules.File, error) {
	var f rules.File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); errors.Is(err, io.EOF) {
		return nil, &rules.LoadError{File: name, Msg: "the file is empty; a rule file starts with version: 1"}
	} else if err != nil {
		return nil, yamlError(name, err)
	}
	if f.Version == 0 {
		return nil, &rules.LoadError{File: name, Line: 1, Msg: "no version: a rule file starts with version: 1"}
	}
	if f.Version != 1 {
		return nil, &rules.LoadError{File: name, Msg: fmt.Sprintf("version %d is not supported; this cordon reads version 1", f.Version)}
	}
	return &f, nil
}

// DecodeFS decodes every .yaml file in dir of fsys, in name order,
// without compiling them.
func DecodeFS(fsys fs.FS, dir string) ([]string, []*rules.File, error) {
	names, err := fs.Glob(fsys, dir+"/*.yaml")
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	var files []*rules.File
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, nil, err
		}
		f, err := Decode(name, data)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, f)
	}
	return names, files, nil
}

// LoadFS decodes and compiles every .yaml file in dir of fsys, in name
// order, into one set; the first problem found is returned with its file.
func LoadFS(fsys fs.FS, dir string) (*rules.Set, error) {
	names, files, err := DecodeFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	return rules.Compile(names, files)
}

// yamlError turns a YAML decoding error ("yaml: line 4: ...") into a
// LoadError with the file and line.
func yamlError(name string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	var line int
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if _, err := fmt.Sscan(n, &line); err == nil {
				msg = after
			}
		}
	}
	return &rules.LoadError{File: name, Line: line, Msg: msg}
}

// DecodeLines is [Decode] that also returns where every key and value
// is: the line of each, by its dotted path in the file ("policies.3",
// "policies.3.match.0", "commands.rm", "paths.scratch.2"). It sets the
// line of each [rules.Example].
func DecodeLines(name string, data []byte) (*rules.File, map[string]int, error) {
	f, err := Decode(name, data)
	if err != nil {
		return nil, nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, yamlError(name, err)
	}
	lines := map[string]int{}
	walkLines(&root, "", lines)
	for i, p := range f.Policies {
		at := "policies." + strconv.Itoa(i)
		for k := range p.Match {
			p.Match[k].Line = lines[at+".match."+strconv.Itoa(k)]
		}
		for k := range p.NotMatch {
			p.NotMatch[k].Line = lines[at+".not_match."+strconv.Itoa(k)]
		}
	}
	return f, lines, nil
}

func walkLines(n *yaml.Node, at string, lines map[string]int) {
	join := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkLines(c, at, lines)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := join(n.Content[i].Value)
			lines[k] = n.Content[i].Line
			walkLines(n.Content[i+1], k, lines)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			k := join(strconv.Itoa(i))
			lines[k] = c.Line
			walkLines(c, k, lines)
		}
	}
}
