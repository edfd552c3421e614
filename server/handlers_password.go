package server

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"secutil/tools/breach"
	"secutil/tools/strength"
)

type passwordRequest struct {
	Password string `json:"password"`
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
	Score              int      `json:"score"`
	Label              string   `json:"label"`
	Feedback           []string `json:"feedback"`
	Length             int      `json:"length"`
	Entropy            float64  `json:"entropy"`
	CharsetSize        int      `json:"charset_size"`
	EstimatedCrackTime string   `json:"estimated_crack_time"`
	// Breached is how often the configured Pwned Passwords file saw the
	// password (0: never), and null on a server without one.
	Breached *int64 `json:"breached"`
}

// handlePasswordCheck estimates strength. The caller's email local part is
// a word an attacker would try first, so it counts as a dictionary word.
// A password the breach file holds is tried first of all: it scores 0.
func (s *Server) handlePasswordCheck(w http.ResponseWriter, r *http.Request, c *call) (any, error) {
	req, err := decode[passwordRequest](w, r)
	if err != nil {
		return nil, err
	}
	local, _, _ := strings.Cut(c.account.Email, "@")
	res := strength.Estimate(req.Password, local, c.account.Email)
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
		return nil, err
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

type entropyResponse struct {
	Entropy            float64 `json:"entropy"`
	EstimateBruteForce string  `json:"estimate_brute_force"`
}

func handleEntropy(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[passwordRequest](w, r)
	if err != nil {
		return nil, err
	}
	bits, _ := strength.Entropy(req.Password)
	return entropyResponse{Entropy: bits, EstimateBruteForce: strength.BruteForceTime(req.Password)}, nil
}

type commonResponse struct {
	IsCommon bool `json:"is_common"`
}

func handleCommonPassword(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[passwordRequest](w, r)
	if err != nil {
		return nil, err
	}
	return commonResponse{IsCommon: strength.IsCommon(req.Password)}, nil
}
