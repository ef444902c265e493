package gitstate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cordonsh/cordon/gitkey"
)

// ListConfig lists the entries of a configuration file, given its bytes,
// as the git binary git (one sandboxed commands cannot replace) reads
// them: from standard input, includes not followed, without a
// repository or any other configuration, so that nothing is run. It is
// the one reading of a configuration file cordon trusts: a parser of
// its own would differ from git somewhere (a comment that ends in a
// backslash, an escaped quote in a subsection).
func ListConfig(git string, data []byte) ([]gitkey.Entry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "--no-pager", "config", "--file", "-", "--no-includes", "--list", "-z")
	cmd.Dir = "/"
	cmd.Env = []string{"GIT_DIR=" + os.DevNull + "/none", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "HOME=" + os.DevNull, "LC_ALL=C", "PATH=/usr/bin:/bin"}
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n"); line != "" {
			return nil, fmt.Errorf("%s", line)
		}
		return nil, err
	}
	return gitkey.List(out), nil
}
