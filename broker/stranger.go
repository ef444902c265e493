package broker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/cordonsh/cordon/credvar"
)

// A stranger's credential on a credential's host is looked for the way
// the most lenient common server reads a request, not the way Go does:
// a server that finds a credential where the broker did not look would
// take the command's own account, and the host opened for the person's
// token would become a way out.

// maxBody bounds a request body the broker reads to check (a form, JSON
// or multipart body on a credential's host); a larger one is refused.
const maxBody = 32 << 20

// maxBuffered bounds the bodies all connections of a broker hold at
// once: they are in the memory of the process that serves the proxy.
const maxBuffered = 128 << 20

// A refusal is why a request is refused, and the status that says so.
type refusal struct {
	code   int
	reason string
}

// queryStranger returns the name of a parameter of the query or form
// body q that carries a credential, split as Rack and PHP split it (at
// "&" and ";"), each name decoded leniently (a bad %-escape kept as it
// is, "+" a space); "" when none does.
func queryStranger(q string) string { return pairStranger(q, credvar.QueryCredential) }

// formStranger is queryStranger for a form body, whose fields are
// judged as a body's ([credvar.BodyCredential]).
func formStranger(q string) string { return pairStranger(q, credvar.BodyCredential) }

// pairStranger returns the name of a pair of q that cred says carries a
// credential.
func pairStranger(q string, cred func(string) bool) string {
	for len(q) > 0 {
		var pair string
		if i := strings.IndexAny(q, "&;"); i >= 0 {
			pair, q = q[:i], q[i+1:]
		} else {
			pair, q = q, ""
		}
		name, _, _ := strings.Cut(pair, "=")
		if credName(name, cred) {
			return name
		}
	}
	return ""
}

// credName reports whether a parameter named name (as sent, or decoded
// leniently) carries a credential, by cred.
func credName(name string, cred func(string) bool) bool {
	return cred(name) || cred(unescape(name))
}

// unescape decodes %XX and "+" in s, keeping what is not a valid escape
// as it is (where Go's url package gives up on the whole pair).
func unescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// Kinds of request body a server reads parameters from.
const (
	bodyOther = iota
	bodyForm
	bodyJSON
	bodyMultipart
)

// bodyKind is the kind of req's body by its Content-Type, read as
// leniently as servers read it: none at all is a form (Rack parses a
// POST without a type as one), any multipart type, any JSON type.
func bodyKind(ct string) int {
	mt, _, _ := strings.Cut(ct, ";")
	mt, _, _ = strings.Cut(mt, ",")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch {
	case mt == "" || mt == "application/x-www-form-urlencoded":
		return bodyForm
	case strings.HasPrefix(mt, "multipart/"):
		return bodyMultipart
	case strings.Contains(mt, "json"):
		return bodyJSON
	}
	return bodyOther
}

// checked reports whether the body of a request with header h is one
// the broker reads to check.
func checked(h http.Header) bool {
	return bodyKind(strings.Join(h.Values("Content-Type"), ",")) != bodyOther
}

// checkBody refuses a body of req that carries a credential in a
// parameter a server would read (a form field, a multipart part's name,
// a JSON object's key), or that is too large or too oddly encoded to
// check. A body it read is put back for sending; release gives back
// what it held of the broker's budget.
func (b *Broker) checkBody(req *http.Request) (r *refusal, release func()) {
	release = func() {}
	if req.Body == nil || req.Body == http.NoBody {
		return nil, release
	}
	cts := req.Header.Values("Content-Type")
	if len(cts) > 1 {
		return &refusal{400, "it has more than one Content-Type header (servers differ on which they read): send one"}, release
	}
	kind := bodyKind(strings.Join(cts, ""))
	if kind == bodyOther {
		return nil, release
	}
	if ce := req.Header.Values("Content-Encoding"); len(ce) > 0 && !(len(ce) == 1 && strings.EqualFold(strings.TrimSpace(ce[0]), "identity")) {
		return &refusal{415, "its form, JSON or multipart body is compressed (Content-Encoding), which cordon cannot check for a credential that is not the person's: send it uncompressed"}, release
	}
	if req.ContentLength > maxBody {
		return tooLarge(), release
	}
	body, r, release := b.readBody(req.Body)
	if r != nil {
		return r, release
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.TransferEncoding = nil
	if len(body) == 0 {
		req.Body = http.NoBody
	}
	switch kind {
	case bodyForm:
		if name := formStranger(string(body)); name != "" {
			return stranger("form field", name), release
		}
	case bodyMultipart:
		if name := multipartStranger(body); name != "" {
			return stranger("multipart part", name), release
		}
	case bodyJSON:
		name, err := jsonStranger(body)
		if err != nil {
			return &refusal{400, "its JSON body does not parse (" + err.Error() + "), so cordon cannot check it for a credential that is not the person's"}, release
		}
		if name != "" {
			return stranger("JSON key", name), release
		}
	}
	return nil, release
}

func tooLarge() *refusal {
	return &refusal{413, fmt.Sprintf("its form, JSON or multipart body is larger than the %d MiB cordon reads to check for a credential that is not the person's", maxBody>>20)}
}

func stranger(where, name string) *refusal {
	return &refusal{403, fmt.Sprintf("its %s %q carries a credential that is not the one cordon holds for this host (the command's own)", where, name)}
}

// readBody reads a body of at most maxBody bytes, within the broker's
// budget for bodies held at once.
func (b *Broker) readBody(r io.Reader) ([]byte, *refusal, func()) {
	var held int64
	release := func() { b.buffered.Add(-held) }
	var buf bytes.Buffer
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			if int64(buf.Len()+n) > maxBody {
				return nil, tooLarge(), release
			}
			held += int64(n)
			if b.buffered.Add(int64(n)) > maxBuffered {
				return nil, &refusal{503, "the credential broker holds too many request bodies at once to check another: try again"}, release
			}
			buf.Write(chunk[:n])
		}
		if err == io.EOF {
			return buf.Bytes(), nil, release
		}
		if err != nil {
			return nil, &refusal{400, "its body could not be read: " + err.Error()}, release
		}
	}
}

// multipartStranger returns a part name in a multipart body that
// carries a credential. It reads no boundaries (servers split parts
// differently): every name in every Content-Disposition header's
// lines anywhere in the body counts, quoted or not, RFC 2231's name*
// too.
func multipartStranger(body []byte) string {
	low := bytes.ToLower(body)
	for off := 0; ; {
		i := bytes.Index(low[off:], []byte("disposition"))
		if i < 0 {
			return ""
		}
		start := off + i
		end := len(low)
		if j := bytes.Index(low[start:], []byte("\n\n")); j >= 0 {
			end = start + j
		}
		if j := bytes.Index(low[start:], []byte("\r\n\r\n")); j >= 0 && start+j < end {
			end = start + j
		}
		if name := headName(string(low[start:end])); name != "" {
			return name
		}
		off = start + 1
	}
}

// headName returns a name= (or name*=) value in a part's head that
// carries a credential; filename= is not a name.
func headName(head string) string {
	for off := 0; ; {
		i := strings.Index(head[off:], "name")
		if i < 0 {
			return ""
		}
		at := off + i
		off = at + 4
		if at > 0 && 'a' <= head[at-1] && head[at-1] <= 'z' {
			continue // filename
		}
		rest := strings.TrimLeft(head[off:], " \t\r\n*")
		v, ok := strings.CutPrefix(rest, "=")
		if !ok {
			continue
		}
		v = strings.TrimLeft(v, " \t")
		if end := strings.IndexAny(v, ";\r\n"); end >= 0 {
			v = v[:end]
		}
		if credName(strings.Trim(strings.TrimSpace(v), `"'`), credvar.BodyCredential) {
			return strings.TrimSpace(v)
		}
	}
}

// jsonStranger returns a key of the JSON object body that carries a
// credential (servers that merge a JSON body into their parameters
// read its top-level keys); an error when the body is not JSON.
func jsonStranger(body []byte) (string, error) {
	if !json.Valid(body) {
		return "", fmt.Errorf("not valid JSON")
	}
	d := json.NewDecoder(bytes.NewReader(body))
	t, err := d.Token()
	if err != nil || t != json.Delim('{') {
		return "", nil // an array or a value: no parameters
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return "", err
		}
		if k, _ := t.(string); credName(k, credvar.BodyCredential) {
			return k, nil
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return "", err
		}
	}
	return "", nil
}
