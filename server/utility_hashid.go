package server

import (
	"context"
	"encoding/json"
	"strings"

	"secutil/server/internal/schemagen"
	"secutil/tools/hashid"
)

// POST /hash_identifier: the formats a hash string may be in, for one string
// or a batch.

// maxIdentifyBatch bounds the hashes of one /hash_identifier call, as for
// /hash_lookup.
const maxIdentifyBatch = 500

// hashIdentifierRequest is {"hash"} for one string or {"hashes"} for a
// batch: an array of strings, or one string of hashes separated by newlines,
// commas, semicolons or spaces.
type hashIdentifierRequest struct {
	_      struct{}  `doc:"exactly one of hash and hashes"`
	Hash   string    `json:"hash" doc:"one hash, or a user:hash or /etc/shadow line"`
	Hashes hashBatch `json:"hashes" doc:"up to 500 hashes (fixed, not a setting), each an item of the monthly usage: an array of strings, or one string separated by newlines, commas, semicolons or spaces (a hash some format parses whole, such as argon2's m=,t=,p=, is kept whole)"`
}

// hashBatch is the "hashes" field, a string or an array of strings.
type hashBatch struct {
	set     bool
	array   bool // sent as an array (a batch even of one)
	invalid bool // neither: check refuses it
	items   []string
}

func (hashBatch) JSONSchema() *schemagen.Object {
	return schemagen.NewObject("type", []any{"array", "string"}, "items", schemagen.NewObject("type", "string"))
}

// UnmarshalJSON takes a string or an array of strings; null is no batch
// at all, as for any missing field.
func (b *hashBatch) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	b.set = true
	var one string
	if json.Unmarshal(data, &one) == nil {
		b.items = []string{one}
		return nil
	}
	b.invalid = json.Unmarshal(data, &b.items) != nil
	b.array = !b.invalid
	return nil
}

func (q *hashIdentifierRequest) check() error {
	switch {
	case !q.Hashes.set:
		return required("hash", q.Hash)
	case q.Hashes.invalid:
		return newError(codeInvalidField, `field "hashes" must be an array of strings or one string of hashes`)
	case q.Hash != "":
		return badRequest(`send either "hash" or "hashes", not both`)
	}
	return nil
}

// tokens splits the batch as hashid.Tokens does; it is a 400 to send none
// or more than maxIdentifyBatch.
func (q *hashIdentifierRequest) tokens() ([]string, error) {
	tokens := hashid.Tokens(strings.Join(q.Hashes.items, "\n"))
	switch {
	case len(tokens) == 0:
		return nil, newError(codeInvalidHashInput,
			`field "hashes" must hold one or more hashes separated by newlines, commas, semicolons or spaces`)
	case len(tokens) > maxIdentifyBatch:
		return nil, newError(codeInvalidHashInput, "at most %d hashes per request", maxIdentifyBatch)
	}
	return tokens, nil
}

// hashIdentifierBatch answers {"hashes"}: every hash, grouped by shape.
type hashIdentifierBatch struct {
	Count  int            `json:"count"`
	Groups []hashid.Group `json:"groups"`
}

// identifyHashes answers {"hash"} with a hashid.Result and {"hashes"}
// with a hashIdentifierBatch, which counts an item per hash.
func identifyHashes(ctx context.Context, req hashIdentifierRequest) (any, error) {
	if !req.Hashes.set {
		return hashid.Identify(req.Hash), nil
	}
	tokens, err := req.tokens()
	if err != nil {
		return nil, err
	}
	if err := countItems(ctx, len(tokens)); err != nil {
		return nil, err
	}
	return hashIdentifierBatch{Count: len(tokens), Groups: hashid.IdentifyBatch(tokens)}, nil
}
