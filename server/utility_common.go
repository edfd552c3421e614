package server

import (
	"context"

	"secutil/tools/strength"
)

// POST /common_pwd: whether a password is a common one. Its request is
// /password_check's (utility_strength.go).

type commonResponse struct {
	IsCommon bool `json:"is_common"`
}

func checkCommon(_ context.Context, req passwordRequest) (commonResponse, error) {
	return commonResponse{IsCommon: strength.IsCommon(req.Password)}, nil
}
