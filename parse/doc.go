// Package parse turns a shell script into the flat list of commands it would
// run, the way the shell itself would see them.
//
// The POSIX family (bash, sh, dash, zsh, ksh) is parsed with mvdan.cc/sh/v3.
// Words are expanded with the real environment but without executing
// anything: command substitutions, $RANDOM and variables set by commands are
// marked unknown instead of being run. Code-carrying positions (nested shells,
// eval, source, xargs, find -exec, sudo and other wrappers, interpreter
// one-liners, literal payloads piped through decoders into a shell, scripts
// on disk) are unwrapped with the help of [Knowledge], which callers build
// from rule files: this package knows shell grammar, never a command's name.
package parse
