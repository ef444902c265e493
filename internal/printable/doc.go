// Package printable makes text from a command, a file name or a rule
// safe to show on a person's terminal ([String]).
package printable
