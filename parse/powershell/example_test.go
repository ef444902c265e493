package powershell_test

import (
	"fmt"
	"strings"

	"github.com/cordonsh/cordon/parse/powershell"
)

func Example() {
	cfg := &powershell.Config{Home: `C:\Users\me`, Dir: `C:\work`}
	res := powershell.Commands(`$t = 'C:\temp'; rm -r $t; iex ('Remove-' + 'Item ~\.ssh')`, cfg)
	for _, c := range res.Commands {
		var args []string
		for _, a := range c.Args {
			args = append(args, a.String())
		}
		fmt.Println(c.Name, strings.Join(args, " "), c.Via)
	}
	// Output:
	// Remove-Item -r C:\temp []
	// Invoke-Expression Remove-Item ~\.ssh []
	// Remove-Item C:\Users\me\.ssh [Invoke-Expression]
}
