package layers

// ForgetLast drops the process's last load, so that a benchmark measures
// a load from the cache on disk, or from the files.
func ForgetLast() { remember("", nil) }
