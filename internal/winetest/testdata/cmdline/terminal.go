package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/cordonsh/cordon/winpipe"
)

// channelRe finds the channel in cordon's set-up script.
var channelRe = regexp.MustCompile(`\$__CordonChannel = '([^']*)'`)

// terminal plays a judged interactive PowerShell's Enter key handler:
// it finds the pipe named in the set-up script on its command line,
// connects as the confined shell does, says hello, sends each line of
// CMDLINE_LINES (separated by \x1e) with its directory, and prints each
// answer as "verdict|message". It exits 0, or 4 when it cannot connect.
func terminal(cmdline string) {
	m := channelRe.FindStringSubmatch(cmdline)
	if m == nil || !strings.Contains(cmdline, "-NoExit -Command") {
		fmt.Println("no set-up script on the command line")
		os.Exit(4)
	}
	conn, err := winpipe.Dial(`\\.\pipe\` + m[1])
	if err != nil {
		fmt.Println("connect:", err)
		os.Exit(4)
	}
	defer conn.Close()
	io.WriteString(conn, "hello\x00pwsh\x001\x00")
	r := bufio.NewReader(conn)
	cwd, _ := os.Getwd()
	for i, line := range strings.Split(os.Getenv("CMDLINE_LINES"), "\x1e") {
		seq := strconv.Itoa(i + 1)
		if _, err := io.WriteString(conn, "line\x00"+seq+"\x00"+cwd+"\x00"+line+"\x00"); err != nil {
			fmt.Println("write:", err)
			os.Exit(4)
		}
		var f [3]string
		for j := range f {
			s, err := r.ReadString(0)
			if err != nil {
				fmt.Println("read:", err)
				os.Exit(4)
			}
			f[j] = strings.TrimSuffix(s, "\x00")
		}
		if f[1] != seq {
			fmt.Println("answer to", f[1], "for", seq)
		}
		fmt.Printf("%s|%s\n", f[0], strings.SplitN(f[2], "\n", 2)[0])
	}
	os.Exit(0)
}
