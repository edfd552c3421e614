package server

import (
	"context"
	"errors"

	"secutil/tools/pbe"
)

// POST /secure_encrypt and /secure_decrypt: a text encrypted with a
// password, and opened again.

type cryptoRequest struct {
	Text     string `json:"text" required:"check"`
	Password string `json:"password" required:"check"`
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
	Result string  `json:"result" required:"true"`
	Error  *string `json:"error" required:"true" type:"null" doc:"always null on success (errors use the shared error body, which has the same field)"`
}

// sealWith is the action of /secure_encrypt and /secure_decrypt: argon2id
// → XChaCha20-Poly1305, the envelope described in docs/ENVELOPE.md. A
// wrong password and a tampered envelope read the same on purpose, and
// both count as a call: the key derivation, the costly part, has run.
func sealWith(op func(ctx context.Context, text, password string) (string, error)) action[cryptoRequest, cryptoResponse] {
	return func(ctx context.Context, req cryptoRequest) (cryptoResponse, error) {
		out, err := op(ctx, req.Text, req.Password)
		if err != nil {
			callOf(ctx).served = errors.Is(err, pbe.ErrDecryptionFailed)
			return cryptoResponse{}, err
		}
		return cryptoResponse{Result: out}, nil
	}
}
