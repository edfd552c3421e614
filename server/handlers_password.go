package server

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"secutil/tools/strength"
)

type passwordRequest struct {
	Password string `json:"password"`
}

func (q *passwordRequest) check() error {
	n := utf8.RuneCountInString(q.Password)
	switch {
	case n == 0:
		return badRequest("field \"password\" is required")
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
}

// handlePasswordCheck estimates strength. The caller's email local part is
// a word an attacker would try first, so it counts as a dictionary word.
func handlePasswordCheck(w http.ResponseWriter, r *http.Request, c *call) (any, error) {
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
	return strengthResponse{
		Score:              res.Score,
		Label:              res.Label,
		Feedback:           feedback,
		Length:             res.Length,
		Entropy:            res.Entropy,
		CharsetSize:        res.CharsetSize,
		EstimatedCrackTime: res.CrackTime,
	}, nil
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
