package geo

// KnownCountry reports whether the countries table has iso.
func KnownCountry(iso string) bool {
	_, ok := countries()[iso]
	return ok
}
