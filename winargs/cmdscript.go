package winargs

import (
	"fmt"
	"strings"
)

// A CmdScript is a cmd.exe command line split into commands: what follows
// /C, after the percent expansion cmd.exe does first.
type CmdScript struct {
	Items []*CmdItem
}

// A CmdItem is a pipeline or a parenthesised group, and how it joins the
// item before it: "" for the first, "&", "&&" or "||".
type CmdItem struct {
	Op       string
	Pipeline []*CmdCommand // commands joined by |
}

// A CmdCommand is one simple command, or a parenthesised group.
type CmdCommand struct {
	// Words are the command's words as cmd.exe keeps them: quotes
	// included, carets removed.
	Words []string
	// Redirs are the redirections, in order.
	Redirs []CmdRedir
	// Group is set for ( ... ): the commands inside.
	Group *CmdScript
	// Quiet is true for a command prefixed with @.
	Quiet bool
}

// Args returns the words with their quotes removed, as a builtin such as
// del or rd reads them.
func (c *CmdCommand) Args() []string {
	out := make([]string, len(c.Words))
	for i, w := range c.Words {
		out[i] = strings.ReplaceAll(w, `"`, "")
	}
	return out
}

// A CmdRedir is one redirection: Fd is 0, 1, 2 ... or -1 for the default
// of the operator; Op is <, > or >>; Target is a file, or &N to a
// descriptor.
type CmdRedir struct {
	Fd     int
	Op     string
	Target string
}

// ExpandPercent does cmd.exe's first pass on a command line: each %NAME%
// whose variable is set (names ignore case) becomes its value; an unset
// one stays as it is, as on a command line (not in a batch file). getenv
// reports whether a variable is set.
func ExpandPercent(line string, getenv func(string) (string, bool)) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '%')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		j := strings.IndexByte(line[i+1:], '%')
		if j < 0 {
			b.WriteString(line)
			return b.String()
		}
		name := line[i+1 : i+1+j]
		if val, ok := getenv(name); ok && name != "" {
			b.WriteString(line[:i])
			b.WriteString(val)
			line = line[i+2+j:]
			continue
		}
		// Not a variable: the first % is literal, and the second may
		// start the next one.
		b.WriteString(line[:i+1])
		line = line[i+1:]
	}
}

// ParseCmd splits a cmd.exe command line (after percent expansion) into
// commands: & && || | separate them, ( ) group them, < > >> with an
// optional descriptor (2>, 2>&1) redirect, ^ escapes the next character
// outside quotes, quotes make everything up to the next quote literal, @
// at a command's start silences its echo. Words are split at spaces and
// tabs only (builtins such as del also split at , ; =, which Args leaves
// to the caller). An unbalanced parenthesis (a ) outside a group
// included), an operator with nothing before or after it, or a
// redirection without a target is an error: cordon does not guess.
func ParseCmd(line string) (*CmdScript, error) {
	p := &cmdParser{toks: cmdTokens(line)}
	s, err := p.script(false)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("cmd.exe: unexpected %q", p.toks[p.i].text)
	}
	return s, nil
}

// A cmdToken is a word or an operator.
type cmdToken struct {
	text string
	op   bool // & && || | ( ) < > >> or a redirection such as 2>
}

// cmdTokens splits line into words and operators.
func cmdTokens(line string) []cmdToken {
	var toks []cmdToken
	var word strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			toks = append(toks, cmdToken{text: word.String()})
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				end = len(line) - i - 1
			} else {
				end++
			}
			word.WriteString(line[i : i+1+end])
			inWord = true
			i += end
		case c == '^':
			if i+1 < len(line) {
				word.WriteByte(line[i+1])
				inWord = true
				i++
			}
		case c == ' ' || c == '\t':
			flush()
		case c == '&' || c == '|':
			flush()
			if i+1 < len(line) && line[i+1] == c {
				toks = append(toks, cmdToken{text: string([]byte{c, c}), op: true})
				i++
			} else {
				toks = append(toks, cmdToken{text: string(c), op: true})
			}
		case c == '(' || c == ')':
			flush()
			toks = append(toks, cmdToken{text: string(c), op: true})
		case c == '<' || c == '>':
			fd := ""
			if inWord && word.Len() == 1 && word.String()[0] >= '0' && word.String()[0] <= '9' {
				fd = word.String()
				word.Reset()
				inWord = false
			}
			flush()
			op := string(c)
			if c == '>' && i+1 < len(line) && line[i+1] == '>' {
				op = ">>"
				i++
			}
			if i+1 < len(line) && line[i+1] == '&' {
				// 2>&1: the target is a descriptor.
				op += "&"
				i++
			}
			toks = append(toks, cmdToken{text: fd + op, op: true})
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return toks
}

type cmdParser struct {
	toks []cmdToken
	i    int
}

func (p *cmdParser) peek() *cmdToken {
	if p.i < len(p.toks) {
		return &p.toks[p.i]
	}
	return nil
}

// script reads items up to the end, or up to ) when nested.
func (p *cmdParser) script(nested bool) (*CmdScript, error) {
	s := &CmdScript{}
	op := ""
	for {
		t := p.peek()
		if t == nil || nested && t.op && t.text == ")" {
			if op != "" && op != "&" {
				return nil, fmt.Errorf("cmd.exe: %s with nothing after it", op)
			}
			return s, nil
		}
		item, err := p.pipeline()
		if err != nil {
			return nil, err
		}
		item.Op = op
		s.Items = append(s.Items, item)
		t = p.peek()
		if t == nil || nested && t.op && t.text == ")" {
			return s, nil
		}
		switch t.text {
		case "&", "&&", "||":
			op = t.text
			p.i++
		default:
			return nil, fmt.Errorf("cmd.exe: unexpected %q", t.text)
		}
	}
}

func (p *cmdParser) pipeline() (*CmdItem, error) {
	item := &CmdItem{}
	for {
		c, err := p.command()
		if err != nil {
			return nil, err
		}
		item.Pipeline = append(item.Pipeline, c)
		if t := p.peek(); t == nil || !t.op || t.text != "|" {
			return item, nil
		}
		p.i++
	}
}

func (p *cmdParser) command() (*CmdCommand, error) {
	c := &CmdCommand{}
	for {
		t := p.peek()
		if t == nil {
			break
		}
		if !t.op {
			w := t.text
			if len(c.Words) == 0 && c.Group == nil && strings.HasPrefix(w, "@") {
				c.Quiet = true
				w = strings.TrimLeft(w, "@")
				if w == "" {
					p.i++
					continue
				}
			}
			c.Words = append(c.Words, w)
			p.i++
			continue
		}
		switch {
		case t.text == "(" && len(c.Words) == 0 && c.Group == nil:
			p.i++
			g, err := p.script(true)
			if err != nil {
				return nil, err
			}
			if t := p.peek(); t == nil || t.text != ")" {
				return nil, fmt.Errorf("cmd.exe: ( without )")
			}
			p.i++
			c.Group = g
		case strings.ContainsAny(t.text, "<>"):
			r, err := p.redir()
			if err != nil {
				return nil, err
			}
			c.Redirs = append(c.Redirs, r)
		case t.text == "(" || t.text == ")":
			// A parenthesis inside a command's words is a word.
			if t.text == ")" {
				goto done
			}
			c.Words = append(c.Words, t.text)
			p.i++
		default:
			goto done
		}
	}
done:
	if len(c.Words) == 0 && c.Group == nil && len(c.Redirs) == 0 {
		if t := p.peek(); t != nil {
			return nil, fmt.Errorf("cmd.exe: %s with nothing before it", t.text)
		}
		return nil, fmt.Errorf("cmd.exe: an empty command")
	}
	return c, nil
}

func (p *cmdParser) redir() (CmdRedir, error) {
	t := p.toks[p.i]
	p.i++
	text := t.text
	r := CmdRedir{Fd: -1}
	if text[0] >= '0' && text[0] <= '9' {
		r.Fd = int(text[0] - '0')
		text = text[1:]
	}
	toFd := strings.HasSuffix(text, "&")
	r.Op = strings.TrimSuffix(text, "&")
	next := p.peek()
	if next == nil || next.op {
		return r, fmt.Errorf("cmd.exe: %s without a target", t.text)
	}
	p.i++
	r.Target = next.text
	if toFd {
		r.Target = "&" + r.Target
	}
	return r, nil
}
