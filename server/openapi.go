package server

//go:generate go run ./internal/openapigen ../static/openapi.json

import (
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"secutil/server/internal/schemagen"
)

// static/openapi.json is made, not written: OpenAPIDocument builds it from
// openapi_source.json (everything but the utilities) and the utilities'
// declarations (utilities.go) with their Go types, and the error codes
// (errors.go). `go generate ./server` writes it; a test fails when the file
// differs from what this makes.

//go:embed openapi_source.json
var openAPISource []byte

// statusesOfEveryUtility are the statuses every utility's operation
// documents, with those of a bad body.
var (
	statusesOfEveryUtility = []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed,
		http.StatusMisdirectedRequest, http.StatusTooManyRequests, http.StatusInternalServerError}
	statusesOfABody = []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType}
)

// OpenAPIDocument is static/openapi.json as it must be.
func OpenAPIDocument() ([]byte, error) {
	v, err := schemagen.Parse(openAPISource)
	if err != nil {
		return nil, fmt.Errorf("openapi_source.json: %w", err)
	}
	doc, ok := v.(*schemagen.Object)
	if !ok {
		return nil, errors.New("openapi_source.json: not an object")
	}
	schemas := member(doc, "components", "schemas")
	paths := member(doc, "paths")
	if schemas == nil || paths == nil {
		return nil, errors.New("openapi_source.json: no paths or components/schemas")
	}
	if err := addUtilities(paths, schemas); err != nil {
		return nil, err
	}
	if err := fillRootUtilityRoute(member(paths, "/{tool}")); err != nil {
		return nil, err
	}
	var codes []any
	for _, c := range errorCodes {
		codes = append(codes, c.Name)
	}
	if err := fill(member(schemas, "Error", "properties", "code"), "enum", codes); err != nil {
		return nil, err
	}
	return schemagen.Encode(doc)
}

// addUtilities writes each utility's operation into paths, and the schemas
// of its request and response types into schemas.
func addUtilities(paths, schemas *schemagen.Object) error {
	named := map[string]reflect.Type{}
	rf := &schemagen.Reflector{Name: nestedSchemaName}
	reflectInto := func(name string, t reflect.Type) error {
		if other, ok := named[name]; ok && other != t {
			return fmt.Errorf("schema %s is both %v and %v", name, other, t)
		}
		if _, ok := named[name]; ok || t.PkgPath() != reflect.TypeFor[Server]().PkgPath() || t.Kind() != reflect.Struct {
			return nil // reflected already, or written in openapi_source.json
		}
		named[name] = t
		schema, err := rf.Schema(t)
		if err != nil {
			return err
		}
		return fill(schemas, name, schema)
	}
	for _, u := range utilities {
		op, err := utilityOperation(u)
		if err != nil {
			return err
		}
		if err := fill(paths, u.path, schemagen.NewObject("post", op)); err != nil {
			return err
		}
		if err := reflectInto(u.requestSchema, u.request); err != nil {
			return fmt.Errorf("%s: %w", u.path, err)
		}
		if err := reflectInto(u.responseSchema, u.response); err != nil {
			return fmt.Errorf("%s: %w", u.path, err)
		}
	}
	for i := 0; i < len(rf.Nested); i++ { // reflecting one may find more
		if err := reflectInto(nestedSchemaName(rf.Nested[i]), rf.Nested[i]); err != nil {
			return err
		}
	}
	return nil
}

// nestedSchemaName names the schema of a struct type met inside a request
// or response: its Go name, capitalized (hashResult: HashResult).
func nestedSchemaName(t reflect.Type) string {
	return strings.ToUpper(t.Name()[:1]) + t.Name()[1:]
}

// utilityOperation is the POST operation of u.
func utilityOperation(u utility) (*schemagen.Object, error) {
	op := schemagen.NewObject(
		"operationId", strings.TrimPrefix(u.path, "/"),
		"summary", u.summary,
		"tags", []any{"utilities"},
	)
	if u.description != "" {
		op.Set("description", u.description)
	}
	op.Set("security", []any{schemagen.NewObject("ApiKey", []any{})})
	example, err := schemagen.Parse([]byte(u.example))
	if err != nil {
		return nil, fmt.Errorf("%s: example: %w", u.path, err)
	}
	op.Set("requestBody", schemagen.NewObject(
		"required", !u.request.Implements(reflect.TypeFor[optionalBody]()),
		"content", schemagen.NewObject("application/json", schemagen.NewObject(
			"schema", schemaRef(u.requestSchema),
			"example", example,
		)),
	))
	statuses := append(slices.Clone(statusesOfEveryUtility), statusesOfABody...)
	answer := schemagen.NewObject("application/json", schemagen.NewObject("schema", schemaRef(u.responseSchema)))
	responses := schemagen.NewObject("200", schemagen.NewObject("description", "OK", "content", answer))
	for _, c := range u.errors {
		statuses = append(statuses, c.Status)
	}
	statuses = append(statuses, u.statuses...)
	slices.Sort(statuses)
	for _, status := range slices.Compact(statuses) {
		responses.Set(strconv.Itoa(status), schemagen.NewObject("$ref", "#/components/responses/E"+strconv.Itoa(status)))
	}
	op.Set("responses", responses)
	return op, nil
}

// fillRootUtilityRoute completes POST /{tool}, every utility at the root: the
// utilities it takes, and their request and response schemas.
func fillRootUtilityRoute(item *schemagen.Object) error {
	if item == nil {
		return errors.New("openapi_source.json: no path /{tool}")
	}
	var names, requests, responses []any
	for _, u := range utilities {
		names = append(names, strings.TrimPrefix(u.path, "/"))
		requests = appendRef(requests, u.requestSchema)
		responses = appendRef(responses, u.responseSchema)
	}
	params, _ := item.Get("parameters")
	list, _ := params.([]any)
	if len(list) != 1 {
		return errors.New("openapi_source.json: /{tool} must have its one parameter")
	}
	param, _ := list[0].(*schemagen.Object)
	for _, fix := range []struct {
		at    *schemagen.Object
		key   string
		value []any
	}{
		{member(param, "schema"), "enum", names},
		{member(item, "post", "requestBody", "content", "application/json", "schema"), "anyOf", requests},
		{member(item, "post", "responses", "200", "content", "application/json", "schema"), "anyOf", responses},
	} {
		if err := fill(fix.at, fix.key, fix.value); err != nil {
			return fmt.Errorf("/{tool}: %w", err)
		}
	}
	return nil
}

func schemaRef(name string) *schemagen.Object {
	return schemagen.NewObject("$ref", "#/components/schemas/"+name)
}

// appendRef adds a reference to the schema name, once.
func appendRef(refs []any, name string) []any {
	for _, r := range refs {
		if ref, _ := r.(*schemagen.Object).Get("$ref"); ref == "#/components/schemas/"+name {
			return refs
		}
	}
	return append(refs, schemaRef(name))
}

// member is the object at the path of keys below o, nil if there is none.
func member(o *schemagen.Object, keys ...string) *schemagen.Object {
	for _, key := range keys {
		if o == nil {
			return nil
		}
		v, _ := o.Get(key)
		o, _ = v.(*schemagen.Object)
	}
	return o
}

// fill sets what the generator makes. openapi_source.json must not hold
// it already: each part of the document has one source.
func fill(o *schemagen.Object, key string, v any) error {
	if o == nil {
		return fmt.Errorf("openapi_source.json: no object to hold %q", key)
	}
	if _, ok := o.Get(key); ok {
		return fmt.Errorf("openapi_source.json holds %q, which is made from the Go declarations: remove it there", key)
	}
	o.Set(key, v)
	return nil
}
