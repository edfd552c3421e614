package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"secutil/tools/hashid"
)

// maxIdentifyBatch bounds the hashes of one /hash_identifier call, as for
// /hash_lookup.
const maxIdentifyBatch = 500

// hashIdentifierRequest is {"hash"} for one string or {"hashes"} for a
// batch: an array of strings, or one string of hashes separated by newlines,
// commas, semicolons or spaces.
type hashIdentifierRequest struct {
	Hash   string    `json:"hash"`
	Hashes hashBatch `json:"hashes"`
}

// hashBatch is the "hashes" field, a string or an array of strings.
type hashBatch struct {
	set     bool
	invalid bool // neither: check refuses it
	items   []string
}

func (b *hashBatch) UnmarshalJSON(data []byte) error {
	b.set = true
	var one string
	if json.Unmarshal(data, &one) == nil {
		b.items = []string{one}
		return nil
	}
	b.invalid = json.Unmarshal(data, &b.items) != nil
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

func handleHashIdentifier(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[hashIdentifierRequest](w, r)
	if err != nil {
		return nil, err
	}
	if !req.Hashes.set {
		return hashid.Identify(req.Hash), nil
	}
	tokens, err := req.tokens()
	if err != nil {
		return nil, err
	}
	return hashIdentifierBatch{Count: len(tokens), Groups: hashid.IdentifyBatch(tokens)}, nil
}
