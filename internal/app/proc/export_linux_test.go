package proc

// TrimMappedBinary is trimMappedBinary, for the test in package proc_test
// (mapped_linux_test.go), which links the whole program.
var TrimMappedBinary = trimMappedBinary
