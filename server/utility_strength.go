package server

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"secutil/tools/breach"
	"secutil/tools/strength"
)

// POST /password_check: a password's strength, against the breach file when
// the server has one. Its request type is also that of /entropy and
// /common_pwd.

type passwordRequest struct {
	Password string `json:"password" required:"check" doc:"at most 256 characters"`
}

func (q *passwordRequest) check() error {
	n := utf8.RuneCountInString(q.Password)
	switch {
	case n == 0:
		return missingField("password")
	case n > strength.MaxPasswordLength:
		return badRequest("field \"password\" must be at most %d characters (it has %d)", strength.MaxPasswordLength, n)
	}
	return nil
}

// strengthResponse is the StrengthResult of the OpenAPI document.
type strengthResponse struct {
	Score              int      `json:"score" doc:"0 to 4" minimum:"0" maximum:"4"`
	Label              string   `json:"label" enum:"very weak,weak,fair,strong,very strong"`
	Feedback           []string `json:"feedback" doc:"a warning and suggestions"`
	Length             int      `json:"length" nullable:"true"`
	Entropy            float64  `json:"entropy" nullable:"true" doc:"length × log2(charset_size)"`
	CharsetSize        int      `json:"charset_size" nullable:"true"`
	EstimatedCrackTime string   `json:"estimated_crack_time" nullable:"true" doc:"offline slow hash at 10^4 guesses/s"`
	// Breached is how often the configured Pwned Passwords file saw the
	// password (0: never), and null on a server without one.
	Breached *int64 `json:"breached" minimum:"0" doc:"how often the server's Pwned Passwords file (-breach-file) saw the password, 0 for never; null on a server without a breach file. A breached password scores 0."`
}

// estimateFor estimates password as the account of email would be
// attacked: its email, and the email's local part, count as words an
// attacker tries first. email is "" for no account.
func estimateFor(password, email string) strength.Result {
	local, _, _ := strings.Cut(email, "@")
	return strength.Estimate(password, local, email)
}

// rateStrength estimates strength. The caller's email local part is
// a word an attacker would try first, so it counts as a dictionary word.
// A password the breach file holds is tried first of all: it scores 0.
func (s *Server) rateStrength(ctx context.Context, req passwordRequest) (strengthResponse, error) {
	res := estimateFor(req.Password, callOf(ctx).account.Email)
	feedback := make([]string, 0, len(res.Suggestions)+1)
	if res.Warning != "" {
		feedback = append(feedback, res.Warning)
	}
	feedback = append(feedback, res.Suggestions...)
	out := strengthResponse{
		Score:              res.Score,
		Label:              res.Label,
		Feedback:           feedback,
		Length:             res.Length,
		Entropy:            res.Entropy,
		CharsetSize:        res.CharsetSize,
		EstimatedCrackTime: res.CrackTime,
	}
	if !breach.HasCounts(s.Breach) {
		return out, nil
	}
	count, found, err := s.Breach.Count(breach.SHA1(req.Password))
	if err != nil {
		return strengthResponse{}, err
	}
	if found {
		count = max(count, 1) // a listed password was seen at least once
	}
	out.Breached = &count
	if found {
		out.Score, out.Label, out.EstimatedCrackTime = 0, strength.Label(0), strength.HumanDuration(0)
		out.Feedback = append([]string{fmt.Sprintf("This password appeared %d times in data breaches: attackers try it first", count)}, out.Feedback...)
	}
	return out, nil
}

// breachedIn looks passwords up in a breach source (nil for none), for
// the account password policy.
func breachedIn(src breach.Source) func(password string) (int64, bool, error) {
	if src == nil {
		return nil
	}
	return func(password string) (int64, bool, error) { return src.Count(breach.SHA1(password)) }
}
