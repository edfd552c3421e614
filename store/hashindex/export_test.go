package hashindex

// SetBatchWords makes imports commit every n words for the duration of a test.
func SetBatchWords(n int) (restore func()) {
	old := batchWords
	batchWords = n
	return func() { batchWords = old }
}
