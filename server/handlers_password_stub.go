package server

// TEMPORARY: a fixed answer for the root-level POST /password_check so the
// tools page and the browser test run on the web branch before the real
// strength handler lands. Delete this file and its line in routes.go then.

import "net/http"

type passwordStubResult struct {
	Score              int      `json:"score"`
	Label              string   `json:"label"`
	Feedback           []string `json:"feedback"`
	Length             *int     `json:"length"`
	Entropy            *float64 `json:"entropy"`
	CharsetSize        *int     `json:"charset_size"`
	EstimatedCrackTime *string  `json:"estimated_crack_time"`
}

func passwordCheckStub(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
	req, err := decode[struct {
		Password string `json:"password"`
	}](w, r)
	if err != nil {
		return nil, err
	}
	n, size, entropy, crack := len([]rune(req.Password)), 26, 0.0, "centuries"
	return passwordStubResult{Score: 3, Label: "strong", Feedback: []string{"stub: the real estimator lands at merge"},
		Length: &n, CharsetSize: &size, Entropy: &entropy, EstimatedCrackTime: &crack}, nil
}
