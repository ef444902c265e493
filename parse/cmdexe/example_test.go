package cmdexe_test

import (
	"fmt"
	"strings"

	"github.com/cordonsh/cordon/parse/cmdexe"
)

func ExampleCommands() {
	res := cmdexe.Commands(`cd /d C:\src && for %d in (build dist) do rd /s /q %d`, &cmdexe.Config{Dir: `C:\work`})
	for _, c := range res.Commands {
		fmt.Printf("%s in %s via %v\n", strings.Join(c.Args, " "), c.Dir, c.Via)
	}
	// Output:
	// cd /d C:\src in C:\work via []
	// rd /s /q build in C:\src via [for]
	// rd /s /q dist in C:\src via [for]
}
