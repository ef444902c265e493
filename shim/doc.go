// Package shim is cordon running as a shell: it decodes an argv the way
// the shell named by argv[0] would ([Decode]), judges what it would run
// ([Judge], [Check]) with package parse and the built-in rules of package
// rules, and either replaces itself with the real shell, argv unchanged,
// or refuses with one paragraph on stderr and exit status 126 ([Run]).
//
// Nothing of cordon's is printed on an allowed command, and the real
// shell is found on PATH skipping every entry that is cordon itself.
package shim
