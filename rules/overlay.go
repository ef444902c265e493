package rules

// Overlay returns base with the rule files (names give their paths, for
// errors) laid over it, the way a stronger layer goes over a weaker one:
// a policy whose id is in base replaces it in place, other policies come
// first, so that they are tried before base's; commands the files define
// replace base's of the same name; path classes, credential variables,
// secret words and env_code entries are added. base is not changed. The
// error, a *[LoadError], is the first problem in the files, as [Compile]
// reports it.
//
// Warning: a stop-gap for the shim's persistent sessions until the
// layered loader lands; it does not keep a project layer from loosening.
func Overlay(base *Set, names []string, files []*File) (*Set, error) {
	top, err := Compile(names, files)
	if err != nil {
		return nil, err
	}
	s := &Set{
		table: base.table, paths: mergePaths(base.paths, top.paths), winPaths: mergePaths(base.winPaths, top.winPaths),
		credVars:    append(append([]string(nil), base.credVars...), top.credVars...),
		secretWords: append(append([]string(nil), base.secretWords...), top.secretWords...),
		envCode:     map[string]string{},
		commands:    make(map[string]*command, len(base.commands)+len(top.commands)),
	}
	for _, m := range []map[string]string{base.envCode, top.envCode} {
		for k, v := range m {
			s.envCode[k] = v
		}
	}
	for _, m := range []map[string]*command{base.commands, top.commands} {
		for k, c := range m {
			s.commands[k] = c
		}
	}
	replaced := map[string]*Policy{}
	for _, p := range top.policies {
		if p.ID != "" {
			replaced[p.ID] = p
		}
	}
	var rest []*Policy
	for _, p := range base.policies {
		if q, ok := replaced[p.ID]; ok && p.ID != "" {
			rest = append(rest, q)
			delete(replaced, p.ID)
			continue
		}
		rest = append(rest, p)
	}
	for _, p := range top.policies {
		if p.ID == "" || replaced[p.ID] == p {
			s.policies = append(s.policies, p)
		}
	}
	s.policies = append(s.policies, rest...)
	return s, nil
}

// NumPolicies returns how many policies s holds.
func (s *Set) NumPolicies() int { return len(s.policies) }
