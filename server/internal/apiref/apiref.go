// Package apiref reads an OpenAPI 3.1 document into the readable API
// reference the /docs page shows: each route with its method, prefix,
// authentication, request and answer fields, status codes and a curl
// example.
package apiref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Reference is the readable form of an OpenAPI document: its routes in
// groups, in the order of groupTitles.
type Reference struct {
	Version string
	Groups  []Group
}

// Group is the routes of one tag of the document, sorted by path.
type Group struct {
	Tag, Title string
	Routes     []Route
}

// groupTitles are the tags the reference shows, in its order, with their
// headings; a route of another tag (or none) is listed under "Other".
var groupTitles = []struct{ tag, title string }{
	{"account", "Account"},
	{"utilities", "Utilities"},
	{"range", "Range API"},
	{"admin", "Administration"},
	{"billing", "Billing"},
	{"operations", "Operations"},
	{"", "Other"},
}

// Route is one route of the reference. Its curl example is Command,
// the request's own origin (the page puts it in), Target and Args.
type Route struct {
	Method, Prefix, Path, Summary, Description, Auth string
	Command, Target, Args                            string
	Request, Response                                []Field
	Statuses                                         []Status
}

// Field is a field of a request or an answer; Type says whether it is
// required.
type Field struct{ Name, Type, Description string }

// Status is an answer's status code and what it means.
type Status struct{ Code, Description string }

// The parts of an OpenAPI 3.1 document the reference reads.
type openAPIDoc struct {
	Info  struct{ Version string }
	Paths map[string]struct {
		Post, Get  *openAPIOperation
		Parameters []struct {
			Name, In string
			Example  json.RawMessage
		}
	}
	Components struct {
		Schemas   map[string]openAPISchema
		Responses map[string]struct{ Description string }
	}
}

type openAPIOperation struct {
	Summary, Description string
	Tags                 []string
	Security             []map[string][]string
	RequestBody          *struct {
		Content map[string]struct {
			Schema  openAPISchema
			Example json.RawMessage
		}
	}
	Responses map[string]struct {
		Ref         string `json:"$ref"`
		Description string
		Content     map[string]struct{ Schema openAPISchema }
	}
}

type openAPISchema struct {
	Ref         string `json:"$ref"`
	Type        json.RawMessage
	Description string
	Required    []string
	Properties  properties
	Enum        []string
	Items       *openAPISchema
	OneOf       []openAPISchema // an answer of two shapes: the reference lists both's fields
	AnyOf       []openAPISchema // a field of several types
}

// properties are a schema's properties in the document's order, which is
// the order the API writes them (the generator writes a Go type's fields
// in the order of its struct).
type properties []property

type property struct {
	name   string
	schema openAPISchema
}

func (ps *properties) UnmarshalJSON(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("properties are not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		p := property{name: tok.(string)}
		if err := dec.Decode(&p.schema); err != nil {
			return err
		}
		*ps = append(*ps, p)
	}
	return nil
}

// typeName renders a 3.1 type ("string" or ["string","null"]), or a
// union of types written with anyOf.
func (sc openAPISchema) typeName() string {
	if sc.Ref != "" {
		return sc.Ref[strings.LastIndexByte(sc.Ref, '/')+1:]
	}
	if len(sc.AnyOf) > 0 {
		names := make([]string, len(sc.AnyOf))
		for i, branch := range sc.AnyOf {
			names[i] = branch.typeName()
		}
		return strings.Join(names, " or ")
	}
	var one string
	if json.Unmarshal(sc.Type, &one) == nil {
		return one
	}
	var many []string
	json.Unmarshal(sc.Type, &many)
	return strings.Join(many, " or ")
}

// Parse reads an OpenAPI 3.1 document. Operations tagged "web" (pages and
// forms, for browsers) are left out: the reference is of the routes a
// program calls.
func Parse(raw []byte) (*Reference, error) {
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	ref := &Reference{Version: doc.Info.Version}
	for _, g := range groupTitles {
		ref.Groups = append(ref.Groups, Group{Tag: g.tag, Title: g.title})
	}
	resolve := func(sc openAPISchema) (openAPISchema, error) {
		if sc.Ref == "" {
			return sc, nil
		}
		name := strings.TrimPrefix(sc.Ref, "#/components/schemas/")
		target, ok := doc.Components.Schemas[name]
		if !ok {
			return sc, fmt.Errorf("unknown schema %q", sc.Ref)
		}
		return target, nil
	}
	var fields func(sc openAPISchema) ([]Field, error)
	fields = func(sc openAPISchema) ([]Field, error) {
		sc, err := resolve(sc)
		if err != nil {
			return nil, err
		}
		var out []Field
		for _, shape := range sc.OneOf {
			more, err := fields(shape)
			if err != nil {
				return nil, err
			}
			for _, f := range more {
				if !slices.ContainsFunc(out, func(g Field) bool { return g.Name == f.Name }) {
					out = append(out, f)
				}
			}
		}
		for _, prop := range sc.Properties {
			name, p := prop.name, prop.schema
			f := Field{Name: name, Type: p.typeName(), Description: p.Description}
			if len(p.Enum) > 0 {
				f.Description = strings.TrimSpace("one of: " + strings.Join(p.Enum, ", ") + ". " + f.Description)
			}
			for _, req := range sc.Required {
				if req == name {
					f.Type += ", required"
				}
			}
			out = append(out, f)
		}
		return out, nil
	}
	for path, item := range doc.Paths {
		for _, op := range []*openAPIOperation{item.Post, item.Get} {
			// The web's pages and forms are for browsers: the reference is
			// of the routes a program calls.
			if op == nil || slices.Contains(op.Tags, "web") {
				continue
			}
			method := "POST"
			if op == item.Get {
				method = "GET"
			}
			rt, err := newRoute(doc, path, method, op, fields)
			if err != nil {
				return nil, err
			}
			group := groupOf(ref, op.Tags)
			group.Routes = append(group.Routes, rt)
		}
	}
	ref.Groups = slices.DeleteFunc(ref.Groups, func(g Group) bool { return len(g.Routes) == 0 })
	for _, g := range ref.Groups {
		sort.Slice(g.Routes, func(i, j int) bool { return g.Routes[i].Path < g.Routes[j].Path })
	}
	return ref, nil
}

// groupOf is the group of ref that a route of these tags belongs to: its
// first tag's, or the last one (Other).
func groupOf(ref *Reference, tags []string) *Group {
	for i := range ref.Groups {
		if len(tags) > 0 && ref.Groups[i].Tag == tags[0] {
			return &ref.Groups[i]
		}
	}
	return &ref.Groups[len(ref.Groups)-1]
}

// apiPrefix is where the document writes the API's routes (each is at
// /api too, its x-aliases say): the reference names them by the rest of
// their path, as the page's table of contents and anchors do (/base64).
const apiPrefix = "/api/v1"

// newRoute is the reference's form of one operation.
func newRoute(doc openAPIDoc, path, method string, op *openAPIOperation, fields func(openAPISchema) ([]Field, error)) (Route, error) {
	item := doc.Paths[path]
	rt := Route{Method: method, Path: path, Auth: "none"}
	if rest, ok := strings.CutPrefix(path, apiPrefix+"/"); ok {
		rt.Prefix, rt.Path = apiPrefix, "/"+rest
	}
	rt.Summary, rt.Description = op.Summary, op.Description
	example := path
	for _, p := range item.Parameters {
		var value string
		if p.In == "path" && json.Unmarshal(p.Example, &value) == nil {
			example = strings.ReplaceAll(example, "{"+p.Name+"}", value)
		}
	}
	rt.Command, rt.Target = "curl -s", example
	if rt.Method == "POST" {
		rt.Command = "curl -s -X POST"
	}
	var curl []string
	for _, sec := range op.Security {
		if _, ok := sec["ApiKey"]; ok {
			rt.Auth = "X-API-Key header"
			curl = append(curl, `-H "X-API-Key: $KEY"`)
		}
		if _, ok := sec["Session"]; ok {
			rt.Auth = "auth_session cookie (from POST /login)"
			curl = append(curl, `-b "auth_session=$SESSION"`)
		}
		if _, ok := sec["MetricsToken"]; ok {
			rt.Auth = "Authorization: Bearer <-metrics-token>"
			curl = append(curl, `-H "Authorization: Bearer $METRICS_TOKEN"`)
		}
	}
	if op.RequestBody != nil {
		body, ok := op.RequestBody.Content["application/json"]
		if !ok {
			return rt, fmt.Errorf("%s: request body is not JSON", path)
		}
		var err error
		if rt.Request, err = fields(body.Schema); err != nil {
			return rt, fmt.Errorf("%s: %w", path, err)
		}
		if len(body.Example) > 0 {
			var example bytes.Buffer
			if err := json.Compact(&example, body.Example); err != nil {
				return rt, fmt.Errorf("%s: example: %w", path, err)
			}
			curl = append(curl, "-H 'Content-Type: application/json'", "-d '"+strings.ReplaceAll(example.String(), "'", `'\''`)+"'")
		}
	}
	for _, arg := range curl {
		rt.Args += " \\\n     " + arg
	}
	for code, resp := range op.Responses {
		desc := resp.Description
		if resp.Ref != "" {
			desc = doc.Components.Responses[strings.TrimPrefix(resp.Ref, "#/components/responses/")].Description
		}
		rt.Statuses = append(rt.Statuses, Status{Code: code, Description: desc})
		if content, ok := resp.Content["application/json"]; ok && code == "200" {
			var err error
			if rt.Response, err = fields(content.Schema); err != nil {
				return rt, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	sort.Slice(rt.Statuses, func(i, j int) bool { return rt.Statuses[i].Code < rt.Statuses[j].Code })
	return rt, nil
}
