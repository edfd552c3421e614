package hashid_test

import (
	"fmt"

	"secutil/tools/hashid"
)

func ExampleIdentify() {
	res := hashid.Identify("$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a")
	c := res.Candidates[0]
	fmt.Println(res.Estimate, *c.HashcatMode, c.JohnFormat, c.Confidence)
	fmt.Println(c.Params["cost"], c.Params["version"], c.Params["salt"])
	fmt.Println(c.Hashcat)
	for _, c := range hashid.Identify("8743b52063cd84097a65d1633f5c74f5").Candidates[:4] {
		fmt.Printf("%s %.2f\n", c.Name, c.Confidence)
	}
	// Output:
	// bcrypt 3200 bcrypt 0.94
	// 10 y .vGA1O9wmRjrwAVXD98HNO
	// hashcat -m 3200 hash.txt wordlist.txt
	// MD5 0.52
	// NTLM 0.21
	// MD4 0.04
	// LM 0.04
}
