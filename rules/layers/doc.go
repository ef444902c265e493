// Package layers finds the rule files that apply to a workspace, lays
// them over the built-in rules and returns the effective [rules.Set],
// with where each policy and command came from.
//
// # Layers
//
// Weakest first; files of a layer are read in name order:
//
//	built-in  embedded in the binary (rules/builtin/*.yaml)
//	system    /etc/cordon/rules/*.yaml ($CORDON_SYSTEM_DIR replaces the directory)
//	user      $XDG_CONFIG_HOME/cordon/rules/*.yaml (default ~/.config/cordon/rules)
//	project   WORKSPACE/.cordon/*.yaml
//
// A later file adds path classes, credential variables and secret words;
// its commands replace earlier commands of the same name (the whole
// spec); its policies replace earlier ones of the same id where they
// stand, or remove them with `disable: true`; its other policies are
// tried before everything earlier. For each effect the first matching
// policy wins (see package rules).
//
// # Trust
//
// A project's files come with the repository, so they only tighten
// unless the user trusted their exact content with `cordon rules trust`
// (a sha256 per file path, kept in $XDG_STATE_HOME/cordon/trust.json).
// Of an untrusted file, what could loosen is refused, item by item, with
// its file and line, and the rest applies: allow policies, disable,
// overriding a policy with a weaker verdict, the path classes that make
// a path less protected (scratch, caches, agent, not_secret, regenerable,
// harmless_devices, startup, not_workspace, sandbox_writable), any
// change to a command cordon already knows, carriers and rewrites
// (carries, translate, rewrite, run_files, runs, option_code, stream,
// code and exec flags), and changes to existing env_code entries. A
// policy or command is applied whole or not at all. On top of that, an
// untrusted project's rules judge every script together with the rules
// without them ([rules.Set.WithFloor]), and the stricter verdict wins:
// whatever the file holds, a verdict never gets weaker.
//
// # Failing closed
//
// A file that does not decode or compile (YAML error, unknown key, wrong
// type, bad pattern, missing or unsupported version) makes [Load] fail
// with its file and line: the shim then runs nothing. A policy whose
// match or not_match examples fail is left out, with a warning.
//
// # Cache
//
// When there are rule files, the outcome of loading them (the files as
// applied, after trust and examples, with sources and warnings) is kept
// in $XDG_STATE_HOME/cordon/rules-cache/, one JSON file per workspace,
// keyed by the path, size, modification time and sha256 of every file,
// the trust records and the cordon executable. A shim whose key matches
// decodes no YAML and runs no examples. The state directory, unlike
// ~/.cache, is not writable by sandboxed commands.
package layers
