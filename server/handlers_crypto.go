package server

import (
	"context"
	"errors"
	"net/http"

	"secutil/tools/pbe"
)

type cryptoRequest struct {
	Text     string `json:"text"`
	Password string `json:"password"`
}

func (q *cryptoRequest) check() error {
	if q.Text == "" {
		return missingField("text")
	}
	if q.Password == "" {
		return missingField("password")
	}
	return nil
}

type cryptoResponse struct {
	Result string  `json:"result"`
	Error  *string `json:"error"` // always null on success
}

// handleCrypto serves /secure_encrypt and /secure_decrypt: argon2id →
// XChaCha20-Poly1305, the envelope described in docs/ENVELOPE.md. A wrong
// password and a tampered envelope read the same on purpose, and both
// count as a call: the key derivation, the costly part, has run.
func handleCrypto(op func(ctx context.Context, text, password string) (string, error)) utility {
	return func(w http.ResponseWriter, r *http.Request, c *call) (any, error) {
		req, err := decode[cryptoRequest](w, r)
		if err != nil {
			return nil, err
		}
		out, err := op(r.Context(), req.Text, req.Password)
		if err != nil {
			c.served = errors.Is(err, pbe.ErrDecryptionFailed)
			return nil, err
		}
		return cryptoResponse{Result: out}, nil
	}
}
