package server

import (
	"cmp"
	"context"
	"strings"

	"secutil/tools/codec"
)

// POST /generate_random_key: a random key of a chosen length and format,
// 256 bits as hex by default.

type randomKeyRequest struct {
	_      struct{} `doc:"Both fields are optional, and so is the body: 32 bytes as hex."`
	Length int      `json:"length" aka:"bytes,size,bits" maximum:"1024" doc:"bytes of randomness, 16 to 1024; 0 or absent: 32 (256 bits)"`
	Format string   `json:"format" aka:"encoding,output" enum:"hex,base64,base64url,alphanumeric" doc:"how the key is written (default hex): hex, base64 (padded), base64url (unpadded) or alphanumeric (A-Z, a-z, 0-9: as many characters as hold the bits)"`
}

// The body may be left out: the key is then 32 bytes as hex.
func (randomKeyRequest) bodyOptional() {}

type randomKeyResponse struct {
	RandomKey string `json:"random_key" required:"true" doc:"the key, written as format says"`
	Format    string `json:"format" required:"true" enum:"hex,base64,base64url,alphanumeric"`
	Bits      int    `json:"bits" required:"true" doc:"bits of randomness in the key: 8 × length"`
}

// generateRandomKey draws a key; codec.GenerateKey refuses a length or
// format out of bounds.
func generateRandomKey(_ context.Context, req randomKeyRequest) (randomKeyResponse, error) {
	length := cmp.Or(req.Length, codec.DefaultKeyBytes)
	format := cmp.Or(strings.ToLower(strings.TrimSpace(req.Format)), codec.KeyHex)
	key, err := codec.GenerateKey(length, format)
	if err != nil {
		return randomKeyResponse{}, err
	}
	return randomKeyResponse{RandomKey: key, Format: format, Bits: 8 * length}, nil
}
