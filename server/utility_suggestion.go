package server

import (
	"context"
	"strings"
	"unicode/utf8"

	"secutil/store"
)

// POST /suggestion: a feature suggestion, stored with the call's charge.

// maxSuggestionChars bounds a suggestion after trimming.
const maxSuggestionChars = 5000

type suggestionRequest struct {
	Email   *string `json:"email"`
	Message string  `json:"message" required:"true" aka:"text,suggestion,feedback" doc:"1 to 5000 characters after trimming"`
}

func (q *suggestionRequest) check() error {
	n := utf8.RuneCountInString(strings.TrimSpace(q.Message))
	if n < 1 || n > maxSuggestionChars {
		return newError(codeInvalidMessageLength, "field \"message\" must be 1 to %d characters after trimming (it has %d)", maxSuggestionChars, n)
	}
	if q.Email != nil && strings.TrimSpace(*q.Email) != "" {
		return validEmail(strings.TrimSpace(*q.Email))
	}
	return nil
}

type suggestionResponse struct {
	Received bool   `json:"received" required:"true" doc:"always true: a suggestion that is not stored is an error"`
	Message  string `json:"message" required:"true" doc:"a thank-you for a person"`
}

// suggest stores a suggestion together with the call's charge and answers
// in JSON, as every route does.
func suggest(ctx context.Context, req suggestionRequest) (suggestionResponse, error) {
	c := callOf(ctx)
	sg := &store.Suggestion{AccountID: c.account.ID, Message: strings.TrimSpace(req.Message)}
	if req.Email != nil {
		sg.Email = strings.TrimSpace(*req.Email)
	}
	c.suggestion = sg
	return suggestionResponse{Received: true, Message: "Thank you: your suggestion was received."}, nil
}
