package hashid_test

import (
	"fmt"

	"secutil/tools/hashid"
)

func ExampleIdentify() {
	for _, c := range hashid.Identify("$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a") {
		fmt.Println(c.Name, *c.HashcatMode, c.JohnFormat)
	}
	for _, c := range hashid.Identify("8743b52063cd84097a65d1633f5c74f5")[:3] {
		fmt.Printf("%s %.2f\n", c.Name, c.Confidence)
	}
	// Output:
	// bcrypt 3200 bcrypt
	// MD5 0.60
	// NTLM 0.56
	// MD4 0.52
}
