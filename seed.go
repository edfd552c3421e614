package main

// commonPasswords is the list the reverse-lookup index is seeded with.
func commonPasswords() []string { return nil }
