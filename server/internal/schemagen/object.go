// Package schemagen builds JSON documents whose member order is kept, and
// reflects JSON Schemas (as OpenAPI 3.1 uses them) from Go struct types and
// their tags. The server makes its OpenAPI document with it.
package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Object is a JSON object that keeps the order of its members, so a
// document written by hand and completed by a program reads as it was
// written.
type Object struct {
	members []member
}

type member struct {
	key   string
	value any
}

// NewObject is an object with the given key, value pairs in order.
func NewObject(pairs ...any) *Object {
	if len(pairs)%2 != 0 {
		panic("schemagen.NewObject: odd number of arguments")
	}
	o := &Object{}
	for i := 0; i < len(pairs); i += 2 {
		o.Set(pairs[i].(string), pairs[i+1])
	}
	return o
}

// Set gives key the value v, in its place if the object has the key, else
// last.
func (o *Object) Set(key string, v any) *Object {
	for i := range o.members {
		if o.members[i].key == key {
			o.members[i].value = v
			return o
		}
	}
	o.members = append(o.members, member{key, v})
	return o
}

// Delete removes key, if the object has it.
func (o *Object) Delete(key string) {
	o.members = slices.DeleteFunc(o.members, func(m member) bool { return m.key == key })
}

// Get is the value of key.
func (o *Object) Get(key string) (any, bool) {
	for _, m := range o.members {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// Keys are the object's keys in order.
func (o *Object) Keys() []string {
	keys := make([]string, len(o.members))
	for i, m := range o.members {
		keys[i] = m.key
	}
	return keys
}

// Len is the number of members.
func (o *Object) Len() int { return len(o.members) }

// MarshalJSON writes the members in order, without escaping <, > and &
// (a document read by people shows them as they are).
func (o *Object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := encodeCompact(&buf, m.key); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := encodeCompact(&buf, m.value); err != nil {
			return nil, fmt.Errorf("%s: %w", m.key, err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func encodeCompact(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

// Encode writes v indented by two spaces, with <, > and & as they are and
// a final newline.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Parse decodes one JSON value: objects become *Object in their order,
// arrays []any, numbers json.Number (written back as they were read).
func Parse(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON value at byte %d", dec.InputOffset())
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := &Object{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := o.Get(key.(string)); dup {
				return nil, fmt.Errorf("key %q twice in one object", key)
			}
			o.Set(key.(string), v)
		}
		_, err := dec.Token() // '}'
		return o, err
	case json.Delim('['):
		items := []any{}
		for dec.More() {
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		_, err := dec.Token() // ']'
		return items, err
	}
	return tok, nil
}
