// Package invocation reads an argv the way the shell named by argv[0]
// would ([Decode]), or a Windows command line the way the program it
// names would ([DecodeWindows]): which shell and dialect, where the
// script comes from, $0, the positional parameters and the options. It
// judges nothing and runs nothing.
package invocation
