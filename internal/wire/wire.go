// Package wire encodes what cordon's processes hand each other (a
// command's argv and environment, its policy) byte for byte. JSON, used
// before, replaces bytes that are not valid UTF-8 with U+FFFD: an
// argument or a variable's value in another encoding reached the real
// shell changed, and two paths that differ only in such bytes looked the
// same. gob keeps a string's bytes as they are; the result is base64, so
// that it travels as one line.
package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/gob"
)

// Encode returns v as one line of text (no newline in it).
func Encode(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(b.Len()))
	base64.StdEncoding.Encode(out, b.Bytes())
	return out, nil
}

// Decode reads into v what [Encode] made (a trailing newline is
// ignored).
func Decode(line []byte, v any) error {
	line = bytes.TrimRight(line, "\r\n")
	data := make([]byte, base64.StdEncoding.DecodedLen(len(line)))
	n, err := base64.StdEncoding.Decode(data, line)
	if err != nil {
		return err
	}
	return gob.NewDecoder(bytes.NewReader(data[:n])).Decode(v)
}
