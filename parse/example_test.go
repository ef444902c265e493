package parse_test

import (
	"fmt"
	"strings"

	"github.com/cordonsh/cordon/parse"
)

// knowledge says that sh runs the code it is given (the rule files say
// this for cordon) and that base64 -d decodes its input.
type knowledge struct{}

func (knowledge) Carrier(name string) *parse.Carrier {
	if name == "sh" {
		return &parse.Carrier{Kind: parse.CarryShell}
	}
	return nil
}

func (knowledge) EnvCode(string) parse.EnvCode { return parse.EnvData }

func (knowledge) Stream(name string) *parse.Stream {
	switch name {
	case "echo":
		return &parse.Stream{Filter: parse.FilterEcho}
	case "base64":
		return &parse.Stream{Filter: parse.FilterBase64, When: []string{"-d"}}
	}
	return nil
}

func Example() {
	cfg := &parse.Config{
		Dialect:   parse.Bash,
		Env:       []string{"HOME=/home/dev"},
		Dir:       "/home/dev/src/app",
		Knowledge: knowledge{},
		Shell: func(argv []string) (parse.ShellCall, error) {
			return parse.ShellCall{Dialect: parse.POSIX, Stdin: true}, nil
		},
	}
	res := parse.Parse(`X=$OUTPUT; echo cm0gLXJmIH4= | base64 -d | sh; rm -rf "$X/root"`, cfg)
	for _, c := range res.Commands {
		fmt.Print(c.Line())
		if len(c.Via) > 0 {
			fmt.Print("  (via ", strings.Join(c.Via, ", "), ")")
		}
		fmt.Println()
	}
	// Output:
	// echo cm0gLXJmIH4=
	// base64 -d
	// sh
	// rm -rf /home/dev  (via sh <stdin)
	// rm -rf /root
}
