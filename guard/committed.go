package guard

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/gitstate"
	"github.com/cordonsh/cordon/platform"
)

// PlaceSpecs are git's pathspecs of the places entries name at any
// depth, regenerable directories left out; none when entries name none.
func PlaceSpecs(entries, regenerable []string) []string {
	var specs []string
	for _, e := range entries {
		dir := strings.HasSuffix(e, "/")
		e = strings.TrimSuffix(e, "/")
		if e == "" || e == ".git" || strings.HasPrefix(e, ".git/") || strings.ContainsAny(e, "*?[") {
			continue
		}
		spec := ":(glob)**/" + e
		if dir {
			spec += "/**"
		}
		specs = append(specs, spec)
	}
	if len(specs) == 0 {
		return nil
	}
	for _, r := range regenerable {
		if !strings.ContainsAny(r, "/*?[") {
			specs = append(specs, ":(exclude,glob)**/"+r+"/**")
		}
	}
	return specs
}

// CommittedPlaces returns a function that reports whether the place at
// path is committed and unchanged in its repository (ws's, or one of
// roots nested in it), asking git once per repository, when first
// needed.
func CommittedPlaces(ws string, env []string, host func() (gitstate.Host, error), roots []string, specs []string) func(path string) bool {
	known := map[string][]string{}
	return func(path string) bool {
		top := ws
		for _, r := range roots {
			if platform.Within(path, r) && len(r) > len(top) {
				top = r
			}
		}
		clean, ok := known[top]
		if !ok {
			clean, _ = (&gitstate.Repo{Top: top, Env: env, Host: host}).Unchanged(specs)
			known[top] = clean
		}
		rel, err := filepath.Rel(top, path)
		return err == nil && slices.Contains(clean, filepath.ToSlash(rel))
	}
}
