package schemagen

import (
	"fmt"
	"slices"
)

// keywordsOfType are the JSON Schema keywords that constrain values of one
// type only: when a union of types is split into branches, each goes to
// the branch of its type.
var keywordsOfType = map[string][]string{
	"array":   {"items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems"},
	"object":  {"properties", "patternProperties", "additionalProperties", "required", "minProperties", "maxProperties"},
	"string":  {"minLength", "maxLength", "pattern"},
	"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
	"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
}

// SplitTypeUnions rewrites, everywhere in a document (examples left as
// they are), a schema whose type is a union of two or more types besides
// "null" ({"type": ["array", "string"], "items": ...}) as the same union
// written with anyOf ({"anyOf": [{"type": "array", "items": ...},
// {"type": "string"}]}), each type's own keywords in its branch. Both say
// the same in JSON Schema; client generators (oapi-codegen among them)
// read anyOf, while they take a type array only as one type or one type
// and "null".
func SplitTypeUnions(v any) error {
	switch v := v.(type) {
	case *Object:
		for _, key := range v.Keys() {
			if key == "example" || key == "examples" {
				continue // values, not schemas
			}
			child, _ := v.Get(key)
			if err := SplitTypeUnions(child); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
		return splitTypeUnion(v)
	case []any:
		for i, child := range v {
			if err := SplitTypeUnions(child); err != nil {
				return fmt.Errorf("%d: %w", i, err)
			}
		}
	}
	return nil
}

// splitTypeUnion rewrites schema itself, if its type is such a union.
func splitTypeUnion(schema *Object) error {
	t, _ := schema.Get("type")
	list, ok := t.([]any)
	if !ok {
		return nil
	}
	types := make([]string, len(list))
	for i, t := range list {
		if types[i], ok = t.(string); !ok {
			return fmt.Errorf("type %v is not a list of names", list)
		}
	}
	if len(slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })) < 2 {
		return nil // one type, maybe nullable: generators read it
	}
	if _, ok := schema.Get("anyOf"); ok {
		return fmt.Errorf("type %v beside an anyOf", types)
	}
	var branches []any
	moved := map[string]bool{}
	for _, t := range types {
		branch := NewObject("type", t)
		for _, key := range keywordsOfType[t] {
			if v, ok := schema.Get(key); ok {
				branch.Set(key, v)
				moved[key] = true
			}
		}
		branches = append(branches, branch)
	}
	rest := &Object{}
	for _, key := range schema.Keys() {
		if key == "type" {
			rest.Set("anyOf", branches)
			continue
		}
		if moved[key] {
			continue
		}
		for other, keys := range keywordsOfType {
			if slices.Contains(keys, key) {
				return fmt.Errorf("%s constrains %s values, and the type is %v", key, other, types)
			}
		}
		v, _ := schema.Get(key)
		rest.Set(key, v)
	}
	*schema = *rest
	return nil
}
