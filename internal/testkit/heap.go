package testkit

import "runtime"

// MemAfterGC reads the memory statistics after two full collections (the
// second frees what the first only finalized): what a measurement of
// retained memory compares.
func MemAfterGC() runtime.MemStats {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms
}

// HeapInUse is the heap in use after two full collections, in bytes.
func HeapInUse() uint64 { return MemAfterGC().HeapInuse }
