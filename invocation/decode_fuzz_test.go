package invocation

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzDecode feeds Decode argvs built from the table's rows (elements
// joined by NUL, which no argv element can hold). Decode must not panic,
// must return an Invocation with Argv unchanged, only *DecodeError errors,
// and a Script, File, Arg0 and Params that come from argv itself.
func FuzzDecode(f *testing.F) {
	for _, tc := range decodeCases {
		f.Add(strings.Join(tc.argv, "\x00"), tc.tty)
	}
	f.Fuzz(func(t *testing.T, joined string, tty bool) {
		argv := strings.Split(joined, "\x00")
		inv, err := Decode(argv, tty)
		var de *DecodeError
		switch {
		case inv == nil:
			t.Fatalf("Decode(%q) returned no Invocation", argv)
		case err != nil && !errors.As(err, &de):
			t.Fatalf("Decode(%q) error %v is not a *DecodeError", argv, err)
		case !slices.Equal(inv.Argv, argv):
			t.Fatalf("Decode(%q) changed Argv to %q", argv, inv.Argv)
		case (inv.Shell == "") != (inv.Mode == ModeExec):
			t.Fatalf("Decode(%q): Shell %q with Mode %v", argv, inv.Shell, inv.Mode)
		}
		checkFromArgv(t, argv, inv)
	})
}

// checkFromArgv checks that what inv takes from the command line is there.
func checkFromArgv(t *testing.T, argv []string, inv *Invocation) {
	rest := argv[min(1, len(argv)):]
	switch {
	case inv.Mode == ModeCommand && !slices.Contains(rest, inv.Script):
		t.Fatalf("Decode(%q): Script %q is not an argument", argv, inv.Script)
	case inv.Mode == ModeFile && !slices.Contains(rest, inv.File):
		t.Fatalf("Decode(%q): File %q is not an argument", argv, inv.File)
	case inv.Mode != ModeExec && !slices.Contains(argv, inv.Arg0):
		t.Fatalf("Decode(%q): Arg0 %q is not in argv", argv, inv.Arg0)
	case len(inv.Params) > 0 && !slices.Equal(rest[len(rest)-len(inv.Params):], inv.Params):
		t.Fatalf("Decode(%q): Params %q are not the last arguments", argv, inv.Params)
	}
}
