package jwt_test

import "encoding/base64"

func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
