package schemagen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Schemer is a type that writes its own schema: one whose JSON is not
// what its Go shape says (a field that takes a string or an array).
type Schemer interface {
	JSONSchema() *Object
}

// Reflector makes the schema of a struct type from its fields' tags:
//
//	json:"name"         the property (a field without a name, or "-", is left out)
//	doc:"text"          its description
//	required:"true"     listed in "required" (the server's decoding refuses a body without it)
//	required:"check"    listed in "required" (the type's own check refuses a body without it)
//	enum:"a,b"          the values it takes
//	nullable:"true"     null as well as its type (a pointer is nullable anyway)
//	type:"null"         the type, instead of the Go type's (a field that is always null)
//	minimum:"0"         its bounds, for a number
//	maximum:"4"
//
// A blank field (_ struct{}) with a doc tag describes the object itself.
// Every object refuses other properties. A field of another struct type
// refers to that type's schema, named by Name.
type Reflector struct {
	// Name is the component name of a nested struct type; every such
	// type met is collected in Nested.
	Name   func(reflect.Type) string
	Nested []reflect.Type
}

// Schema is the schema of struct type t.
func (rf *Reflector) Schema(t reflect.Type) (*Object, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%v is not a struct", t)
	}
	props := &Object{}
	var required []any
	var description string
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous {
			continue // its fields are visible
		}
		if f.Name == "_" {
			description = f.Tag.Get("doc")
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		prop, err := rf.property(f)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, f.Name, err)
		}
		props.Set(name, prop)
		if req := f.Tag.Get("required"); req == "true" || req == "check" {
			required = append(required, name)
		}
	}
	schema := NewObject("type", "object")
	if description != "" {
		schema.Set("description", description)
	}
	schema.Set("properties", props)
	if len(required) > 0 {
		schema.Set("required", required)
	}
	schema.Set("additionalProperties", false)
	return schema, nil
}

// property is the schema of a field: its type's, with what its tags add.
func (rf *Reflector) property(f reflect.StructField) (*Object, error) {
	prop, err := rf.typeSchema(f.Type)
	if err != nil {
		return nil, err
	}
	if typ := f.Tag.Get("type"); typ != "" {
		prop.Set("type", typ)
	}
	if f.Tag.Get("nullable") == "true" {
		t, _ := prop.Get("type")
		prop.Set("type", []any{t, "null"})
	}
	if doc := f.Tag.Get("doc"); doc != "" {
		prop.Set("description", doc)
	}
	if enum := f.Tag.Get("enum"); enum != "" {
		var values []any
		for _, v := range strings.Split(enum, ",") {
			values = append(values, v)
		}
		prop.Set("enum", values)
	}
	for _, bound := range []string{"minimum", "maximum"} {
		if v := f.Tag.Get(bound); v != "" {
			prop.Set(bound, json.Number(v))
		}
	}
	return prop, nil
}

var schemerType = reflect.TypeFor[Schemer]()

func (rf *Reflector) typeSchema(t reflect.Type) (*Object, error) {
	if t.Implements(schemerType) {
		return reflect.Zero(t).Interface().(Schemer).JSONSchema(), nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := rf.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		typ, ok := elem.Get("type")
		if !ok {
			return nil, fmt.Errorf("a pointer to %v, which has no type to make nullable", t.Elem())
		}
		return elem.Set("type", []any{typ, "null"}), nil
	case reflect.String:
		return NewObject("type", "string"), nil
	case reflect.Bool:
		return NewObject("type", "boolean"), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return NewObject("type", "integer"), nil
	case reflect.Float32, reflect.Float64:
		return NewObject("type", "number"), nil
	case reflect.Slice:
		items, err := rf.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		return NewObject("type", "array", "items", items), nil
	case reflect.Struct:
		if !slices.Contains(rf.Nested, t) {
			rf.Nested = append(rf.Nested, t)
		}
		return NewObject("$ref", "#/components/schemas/"+rf.Name(t)), nil
	}
	return nil, fmt.Errorf("no schema for a %v", t)
}
