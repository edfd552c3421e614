package server

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"time"

	"secutil/tools/closest"
)

// Field validation of request bodies: required fields (tagged
// required:"true", which also puts them in the request schema's "required"
// list of static/openapi.json) and the path of a field of the wrong type,
// as the client wrote it.

// clientPath rewrites the field a type error of decoding into v names as
// the client wrote it.
func clientPath(err error, v any) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		typ.Field = jsonPath(reflect.TypeOf(v), typ.Field)
	}
	return err
}

// jsonPath is the path of a field as the client wrote it: encoding/json
// names the Go name of an embedded struct on the way (emailRequest.email),
// which the client never sees.
func jsonPath(t reflect.Type, goPath string) string {
	var kept []string
	for _, seg := range strings.Split(goPath, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t != nil && t.Kind() == reflect.Struct {
			if f, ok := t.FieldByName(seg); ok && f.Anonymous {
				t = f.Type
				continue
			}
		}
		kept = append(kept, seg)
		t = nil // deeper fields keep their names as they are
	}
	return strings.Join(kept, ".")
}

// requiredFields caches, per request type, the JSON names of its fields
// tagged required:"true". (required:"check" lists a field in the schema
// whose presence the type's check method enforces, with its own message.)
var requiredFields sync.Map // reflect.Type -> []string

func requiredOf(t reflect.Type) []string {
	if names, ok := requiredFields.Load(t); ok {
		return names.([]string)
	}
	var names []string
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			if f.Tag.Get("required") == "true" {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				names = append(names, name)
			}
		}
	}
	requiredFields.Store(t, names)
	return names
}

// checkPresent reports the first required field of v that body (one JSON
// object, already decoded into v) leaves out or sets to null. Only request
// types with required fields pay for the second look at the body.
func checkPresent(body []byte, v any) error {
	names := requiredOf(reflect.TypeOf(v).Elem())
	if len(names) == 0 {
		return nil
	}
	if missing, ok := firstMissing(body, names); ok {
		if missing == "" {
			return nil
		}
		return missingField(missing)
	}
	var present map[string]json.RawMessage
	if err := json.Unmarshal(body, &present); err != nil {
		return jsonDecodeError(err)
	}
	for _, name := range names {
		if raw, ok := present[name]; !ok || string(raw) == "null" {
			return missingField(name)
		}
	}
	return nil
}

// nameMisspelling turns err, when it is a missing_field error of a JSON
// body, into one that also names a key of the body that looks like a
// misspelling of the missing field ("passwrd" for "password"). Keys a
// route does not read are otherwise ignored, since clients may send more
// than one route needs; only here, where the request fails anyway, does
// naming one help.
func nameMisspelling(body []byte, err error) error {
	var missing *apiError
	if !errors.As(err, &missing) || missing.field == "" {
		return err
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(body, &keys) != nil {
		return err
	}
	for key := range keys {
		if _, near := closest.Match(key, []string{missing.field}); near && key != missing.field {
			return newError(codeMissingField, "field %q is required; the request has %q: did you mean %q?", missing.field, truncate(key, 40), missing.field)
		}
	}
	return err
}

// missingField is the one error of a required field that is absent, null
// or blank, on every route.
func missingField(name string) *apiError {
	e := newError(codeMissingField, "field %q is required", name)
	e.field = name
	return e
}

// firstMissing is checkPresent's answer read straight off the body, without
// decoding it into a map (which cost more than the rest of a metered call's
// decoding): the first of names the top-level object leaves out or sets to
// null, "" when none, the last of repeated keys counting, as in a map. body
// must be JSON that json.Unmarshal accepted. ok is false, and the caller
// asks encoding/json, when there are more than 8 names or a key holds an
// escape.
func firstMissing(body []byte, names []string) (missing string, ok bool) {
	if len(names) > 8 {
		return "", false
	}
	var set [8]bool // set[j]: names[j] is present and not null
	if !eachMember(body, func(key, value []byte) {
		for j, name := range names {
			if string(key) == name {
				set[j] = string(value) != "null"
			}
		}
	}) {
		return "", false
	}
	for j, name := range names {
		if !set[j] {
			return name, true
		}
	}
	return "", true
}

// eachMember calls f with each key of the top-level JSON object body and
// its value's bytes, in order, without decoding them. body must be JSON
// that json.Unmarshal accepted. It returns false, and the caller asks
// encoding/json, when body is no object or a key holds an escape.
func eachMember(body []byte, f func(key, value []byte)) bool {
	i := skipJSONSpace(body, 0)
	if i >= len(body) || body[i] != '{' {
		return false
	}
	for i = skipJSONSpace(body, i+1); i < len(body) && body[i] != '}'; i = skipJSONSpace(body, i) {
		if body[i] == ',' {
			i = skipJSONSpace(body, i+1)
		}
		if i >= len(body) || body[i] != '"' {
			return false
		}
		end := i + 1
		for end < len(body) && body[end] != '"' {
			if body[end] == '\\' {
				return false
			}
			end++
		}
		key := body[i+1 : min(end, len(body))]
		i = skipJSONSpace(body, end+1)
		if i >= len(body) || body[i] != ':' {
			return false
		}
		start := skipJSONSpace(body, i+1)
		i = skipJSONValue(body, start)
		f(key, body[start:min(i, len(body))])
	}
	return true
}

func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the index just past the valid JSON value at b[i:]:
// where a ',', '}', ']' or space at its own level ends it.
func skipJSONValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// required reports a required string field that is missing or blank.
func required(name, value string) error {
	if strings.TrimSpace(value) == "" {
		return missingField(name)
	}
	return nil
}

// parseTime parses a required RFC 3339 field.
func parseTime(field, value string) (time.Time, error) {
	if err := required(field, value); err != nil {
		return time.Time{}, err
	}
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return time.Time{}, badRequest("field %q must be an RFC 3339 time like 2026-12-31T23:59:59Z", field)
	}
	return t.UTC(), nil
}
