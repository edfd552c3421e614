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
	if err := writePathsInFull(doc); err != nil {
		return nil, err
	}
	if err := schemagen.SplitTypeUnions(doc); err != nil {
		return nil, err
	}
	return schemagen.Encode(doc)
}

// writePathsInFull writes every path of doc in full, under one server,
// "/". openapi_source.json writes a path where the router serves it: an
// API route under the document's servers (/api/v1, then /api), a route
// at the root under its own servers ("/"); client generators read neither
// kind of server list (a path's own servers least of all), so a path
// written so would answer 404 through them. The path at the first server
// is the one the document gives; the same route at the others, and at
// the paths the source's x-aliases add (relative as the path is), are
// listed in its x-aliases, which the contract test and /docs read.
func writePathsInFull(doc *schemagen.Object) error {
	rootServers, err := serverURLs(doc)
	if err != nil || len(rootServers) == 0 {
		return fmt.Errorf("openapi_source.json: the document's servers: %v", err)
	}
	paths := member(doc, "paths")
	full, seen := &schemagen.Object{}, map[string]bool{}
	for _, key := range paths.Keys() {
		v, _ := paths.Get(key)
		item, ok := v.(*schemagen.Object)
		if !ok {
			return fmt.Errorf("openapi_source.json: path %s is not an object", key)
		}
		servers := rootServers
		if _, ok := item.Get("servers"); ok {
			if servers, err = serverURLs(item); err != nil || len(servers) == 0 {
				return fmt.Errorf("openapi_source.json: the servers of %s: %v", key, err)
			}
		}
		relative := []string{key}
		if v, ok := item.Get("x-aliases"); ok {
			for _, alias := range v.([]any) {
				relative = append(relative, alias.(string))
			}
		}
		var all []any
		for _, server := range servers {
			for _, p := range relative {
				all = append(all, strings.TrimSuffix(server, "/")+p)
			}
		}
		written := &schemagen.Object{}
		if len(all) > 1 {
			written.Set("x-aliases", all[1:])
		}
		for _, k := range item.Keys() {
			if k != "servers" && k != "x-aliases" {
				v, _ := item.Get(k)
				written.Set(k, v)
			}
		}
		for _, p := range all {
			if seen[p.(string)] {
				return fmt.Errorf("openapi_source.json: path %s twice", p)
			}
			seen[p.(string)] = true
		}
		full.Set(all[0].(string), written)
	}
	doc.Set("paths", full)
	doc.Set("servers", []any{schemagen.NewObject("url", "/", "description", "the server's origin: every path is written in full")})
	return nil
}

// serverURLs are the URLs of the servers o lists.
func serverURLs(o *schemagen.Object) ([]string, error) {
	v, _ := o.Get("servers")
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("not a list")
	}
	var urls []string
	for _, s := range list {
		server, _ := s.(*schemagen.Object)
		if server == nil {
			return nil, errors.New("a server that is not an object")
		}
		url, _ := server.Get("url")
		u, ok := url.(string)
		if !ok || !strings.HasPrefix(u, "/") {
			return nil, fmt.Errorf("server URL %v is not a path", url)
		}
		urls = append(urls, u)
	}
	return urls, nil
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
		"operationId", operationID(u),
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

// operationID is the operationId of a utility's operation: post_ and its
// name. Client generators name a type after it (oapi-codegen's
// <OperationId>Response holds the answer of any status), so the name alone
// would clash with the utility's own response schema (base64 and
// Base64Response).
func operationID(u utility) string {
	return "post_" + strings.TrimPrefix(u.path, "/")
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
