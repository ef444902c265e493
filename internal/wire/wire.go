// Package wire encodes what cordon's processes hand each other (a
// command's argv and environment, its policy) byte for byte. JSON, used
// before, replaces bytes that are not valid UTF-8 with U+FFFD: an
// argument or a variable's value in another encoding reached the real
// shell changed, and two paths that differ only in such bytes looked the
// same. The result is base64, so that it travels as one line.
//
// The encoding is this package's own, not encoding/gob: linking gob
// costs every start of cordon, whatever its role, about 370 allocations
// in gob's package initialisation (docs/performance.md), and both ends
// are always the same binary (a session's key includes cordon's own
// file, and the other processes are started from /proc/self/exe), so
// no description of the types needs to travel. Values are written in
// the order of their type: a struct's exported fields in order, each
// slice, map and string with its length first (a map's keys sorted, so
// the same value always gives the same line), a pointer with a byte that
// says whether it is nil. Booleans, integers of every size, strings,
// slices, arrays, maps with string or integer keys, structs and pointers
// are supported; anything else is an error, never skipped.
package wire

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// maxDepth bounds how deeply values may nest (pointers, slices, maps and
// structs within each other): cordon's own types nest a few levels.
const maxDepth = 32

// Encode returns v as one line of text (no newline in it). Pointers at
// the top are followed; a nil one is an error.
func Encode(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, errors.New("wire: cannot encode a nil pointer")
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil, errors.New("wire: cannot encode nil")
	}
	b, err := appendValue(nil, rv, 0)
	if err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(len(b)))
	base64.StdEncoding.Encode(out, b)
	return out, nil
}

// Decode reads into v, a non-nil pointer, what [Encode] made from a
// value of v's type (a trailing newline is ignored). Anything else
// (another type's line, a truncated one, bytes left over) is an error.
func Decode(line []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("wire: decoding needs a non-nil pointer")
	}
	line = bytes.TrimRight(line, "\r\n")
	data := make([]byte, base64.StdEncoding.DecodedLen(len(line)))
	n, err := base64.StdEncoding.Decode(data, line)
	if err != nil {
		return err
	}
	rv = rv.Elem()
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		rv = rv.Elem()
	}
	d := decoder{data: data[:n]}
	if err := d.value(rv, 0); err != nil {
		return err
	}
	if len(d.data) != 0 {
		return fmt.Errorf("wire: %d bytes left after a %s", len(d.data), rv.Type())
	}
	return nil
}

func appendValue(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errors.New("wire: values nested too deeply")
	}
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...), nil
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
			b = binary.AppendUvarint(b, uint64(v.Len()))
			return append(b, v.Bytes()...), nil
		}
		b = binary.AppendUvarint(b, uint64(v.Len()))
		var err error
		for i := 0; i < v.Len() && err == nil; i++ {
			b, err = appendValue(b, v.Index(i), depth+1)
		}
		return b, err
	case reflect.Map:
		keys := v.MapKeys()
		if err := sortKeys(keys); err != nil {
			return nil, err
		}
		b = binary.AppendUvarint(b, uint64(len(keys)))
		var err error
		for _, k := range keys {
			if b, err = appendValue(b, k, depth+1); err != nil {
				return nil, err
			}
			if b, err = appendValue(b, v.MapIndex(k), depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), nil
		}
		return appendValue(append(b, 1), v.Elem(), depth+1)
	case reflect.Struct:
		t := v.Type()
		var err error
		for i := 0; i < t.NumField() && err == nil; i++ {
			if t.Field(i).IsExported() {
				b, err = appendValue(b, v.Field(i), depth+1)
			}
		}
		return b, err
	}
	return nil, fmt.Errorf("wire: cannot encode a %s", v.Type())
}

// sortKeys orders a map's keys, so that a map always encodes the same.
func sortKeys(keys []reflect.Value) error {
	if len(keys) == 0 {
		return nil
	}
	switch keys[0].Kind() {
	case reflect.String:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.Int(), b.Int()) })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.Uint(), b.Uint()) })
	default:
		return fmt.Errorf("wire: cannot encode a map keyed by %s", keys[0].Type())
	}
	return nil
}

// decoder reads what appendValue wrote, from data.
type decoder struct{ data []byte }

var errShort = errors.New("wire: the line ends early")

func (d *decoder) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.data)
	if n <= 0 {
		return 0, errShort
	}
	d.data = d.data[n:]
	return x, nil
}

// length reads a count of things that follow: never more than the bytes
// left, so that a forged line cannot make a large allocation.
func (d *decoder) length() (int, error) {
	x, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if x > uint64(len(d.data)) {
		return 0, errShort
	}
	return int(x), nil
}

func (d *decoder) bytes() ([]byte, error) {
	n, err := d.length()
	if err != nil {
		return nil, err
	}
	s := d.data[:n]
	d.data = d.data[n:]
	return s, nil
}

func (d *decoder) value(v reflect.Value, depth int) error {
	if depth > maxDepth {
		return errors.New("wire: values nested too deeply")
	}
	switch v.Kind() {
	case reflect.Bool:
		if len(d.data) == 0 || d.data[0] > 1 {
			return errors.New("wire: not a boolean")
		}
		v.SetBool(d.data[0] == 1)
		d.data = d.data[1:]
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, n := binary.Varint(d.data)
		if n <= 0 {
			return errShort
		}
		if v.OverflowInt(x) {
			return fmt.Errorf("wire: %d overflows a %s", x, v.Type())
		}
		d.data = d.data[n:]
		v.SetInt(x)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		x, err := d.uvarint()
		if err != nil {
			return err
		}
		if v.OverflowUint(x) {
			return fmt.Errorf("wire: %d overflows a %s", x, v.Type())
		}
		v.SetUint(x)
		return nil
	case reflect.String:
		s, err := d.bytes()
		if err != nil {
			return err
		}
		v.SetString(string(s))
		return nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			s, err := d.bytes()
			if err != nil {
				return err
			}
			if len(s) > 0 {
				v.SetBytes(bytes.Clone(s))
			} else {
				v.SetZero()
			}
			return nil
		}
		n, err := d.length()
		if err != nil {
			return err
		}
		if n == 0 {
			v.SetZero()
			return nil
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			if err := d.value(s.Index(i), depth+1); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Array:
		n, err := d.length()
		if err != nil {
			return err
		}
		if n != v.Len() {
			return fmt.Errorf("wire: %d elements for a %s", n, v.Type())
		}
		for i := 0; i < n; i++ {
			if err := d.value(v.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		n, err := d.length()
		if err != nil {
			return err
		}
		if n == 0 {
			v.SetZero()
			return nil
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		kt, et := v.Type().Key(), v.Type().Elem()
		for i := 0; i < n; i++ {
			k, e := reflect.New(kt).Elem(), reflect.New(et).Elem()
			if err := d.value(k, depth+1); err != nil {
				return err
			}
			if err := d.value(e, depth+1); err != nil {
				return err
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
		return nil
	case reflect.Pointer:
		if len(d.data) == 0 || d.data[0] > 1 {
			return errors.New("wire: not a pointer's mark")
		}
		present := d.data[0] == 1
		d.data = d.data[1:]
		if !present {
			v.SetZero()
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := d.value(p.Elem(), depth+1); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				if err := d.value(v.Field(i), depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return fmt.Errorf("wire: cannot decode a %s", v.Type())
}
