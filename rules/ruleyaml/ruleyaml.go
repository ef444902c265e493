// Package ruleyaml reads rule files written in YAML into the types of
// package rules. It is kept apart from rules so that the shim, which runs
// the built-in rules decoded at build time, links no YAML decoder.
package ruleyaml

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"
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
	if err := dec.Decode(&f); err != nil {
		return nil, yamlError(name, err)
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
