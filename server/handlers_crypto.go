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
		return newError(http.StatusBadRequest, "invalid_input", "field \"text\" is required")
	}
	if q.Password == "" {
		return newError(http.StatusBadRequest, "invalid_input", "field \"password\" is required")
	}
	return nil
}

type cryptoResponse struct {
	Result string `json:"result"`
}

// handleCrypto serves /secure_encrypt and /secure_decrypt: argon2id →
// XChaCha20-Poly1305, the envelope described in docs/ENVELOPE.md.
func handleCrypto(op func(ctx context.Context, text, password string) (string, error), failed string) utility {
	return func(w http.ResponseWriter, r *http.Request, _ *call) (any, error) {
		req, err := decode[cryptoRequest](w, r)
		if err != nil {
			return nil, err
		}
		out, err := op(r.Context(), req.Text, req.Password)
		if err != nil {
			return nil, cryptoError(err, failed)
		}
		return cryptoResponse{Result: out}, nil
	}
}

// cryptoError maps the engine's errors to 400s; a wrong password and
// a tampered envelope read the same on purpose.
func cryptoError(err error, failed string) error {
	switch {
	case errors.Is(err, pbe.ErrDecryptionFailed):
		return newError(http.StatusBadRequest, "decryption_failed", "decryption failed: wrong password or altered text")
	case errors.Is(err, pbe.ErrInvalidInput):
		return newError(http.StatusBadRequest, "invalid_input", "%s", err.Error())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return newError(http.StatusServiceUnavailable, "busy", "%s: the server is busy, retry shortly", failed)
	default:
		return err
	}
}
