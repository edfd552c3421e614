package server

import (
	"encoding/json"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"secutil/tools/closest"
)

// The fields of a request type as clients name them. A utility's JSON body
// may hold no other key (refuseUnknownFields): a key that is none of them
// is a 400 that names it and, when one is near, the field it meant, either
// a misspelling of its name or one of the natural names its aka tag lists
// (aka:"ip,address" on ip_string). A form's fields, all strings, are read
// as the JSON types of the fields they fill (formJSON).

// requestField is one field of a request type.
type requestField struct {
	name string       // as JSON names it
	aka  []string     // other names clients give it, from its aka tag
	kind reflect.Kind // of its type, through a pointer
}

// requestFieldsOf caches, per request type, its fields.
var requestFieldsOf sync.Map // reflect.Type -> []requestField

func requestFields(t reflect.Type) []requestField {
	if fields, ok := requestFieldsOf.Load(t); ok {
		return fields.([]requestField)
	}
	var fields []requestField
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous || !f.IsExported() || name == "" || name == "-" {
				continue
			}
			field := requestField{name: name, kind: f.Type.Kind()}
			if field.kind == reflect.Pointer {
				field.kind = f.Type.Elem().Kind()
			}
			if aka := f.Tag.Get("aka"); aka != "" {
				field.aka = strings.Split(aka, ",")
			}
			fields = append(fields, field)
		}
	}
	requestFieldsOf.Store(t, fields)
	return fields
}

// field is the field named key. (encoding/json would also fill a field
// from a key in other case, but the required fields are checked by their
// names as written, so "Text" is refused as a misspelling of "text".)
func field[K string | []byte](fields []requestField, key K) (requestField, bool) {
	for _, f := range fields {
		if string(key) == f.name { // no copy of a []byte key
			return f, true
		}
	}
	return requestField{}, false
}

// refuseUnknownFields reports the first key of body (one JSON object,
// already decoded into a value of type t) that is no field of t.
func refuseUnknownFields(body []byte, t reflect.Type) error {
	fields := requestFields(t)
	var unknown string
	found := false
	if !eachMember(body, func(key, _ []byte) {
		if _, ok := field(fields, key); !ok && !found {
			unknown, found = string(key), true
		}
	}) {
		// A key with an escape: encoding/json reads it.
		var members map[string]json.RawMessage
		if err := json.Unmarshal(body, &members); err != nil {
			return jsonDecodeError(err)
		}
		for _, key := range slices.Sorted(maps.Keys(members)) {
			if _, ok := field(fields, key); !ok && !found {
				unknown, found = key, true
			}
		}
	}
	if !found {
		return nil
	}
	if meant, ok := meantField(unknown, fields); ok {
		return newError(codeUnknownField, "unknown field %q: did you mean %q?", truncate(unknown, 40), meant)
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = strconv.Quote(f.name)
	}
	return newError(codeUnknownField, "unknown field %q: the fields are %s", truncate(unknown, 40), andList(names))
}

// meantField is the field a client likely meant by key: the one whose aka
// tag lists it, or else the one whose name is nearest (a misspelling).
func meantField(key string, fields []requestField) (string, bool) {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
		for _, aka := range f.aka {
			if strings.EqualFold(aka, key) {
				return f.name, true
			}
		}
	}
	return closest.Match(strings.ToLower(key), names)
}

// andList joins items as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// formJSON is the JSON object of a form's fields for a request v (a
// pointer to a struct): each field's first value, as a JSON boolean or
// number where v's field of that name is one ("on", as a checked box sends
// it, is true; an empty number box leaves its field out, so it takes its
// default). A value that does not read as the field's type stays a string,
// for decoding to refuse with the field's name.
func formJSON(form url.Values, v any) ([]byte, error) {
	fields := requestFields(reflect.TypeOf(v).Elem())
	members := make(map[string]any, len(form))
	for name, values := range form {
		if len(values) == 0 {
			continue
		}
		value := values[0]
		f, _ := field(fields, name)
		switch f.kind {
		case reflect.Bool:
			switch strings.ToLower(strings.TrimSpace(value)) {
			case "true", "on", "1", "yes":
				members[name] = true
				continue
			case "false", "off", "0", "no", "":
				members[name] = false
				continue
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			trimmed := strings.TrimSpace(value)
			if trimmed == "" {
				continue
			}
			if isJSONNumber(trimmed) {
				members[name] = json.Number(trimmed)
				continue
			}
		}
		members[name] = value
	}
	return json.Marshal(members)
}

// isJSONNumber reports whether s is one JSON number.
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}
