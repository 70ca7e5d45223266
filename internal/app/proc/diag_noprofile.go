//go:build !profile

package proc

import (
	"errors"
	"os"
)

// startProfiles refuses the profile variables in a binary built without
// -tags profile (diag_profile.go): importing runtime/pprof would keep the
// memory profiler sampling in every dashboard.
func startProfiles() (stop func(), err error) {
	for _, v := range []string{"TRADEDECK_CPUPROFILE", "TRADEDECK_MEMPROFILE"} {
		if os.Getenv(v) != "" {
			return func() {}, errors.New(v + " needs a binary built with -tags profile (go build -tags profile)")
		}
	}
	return func() {}, nil
}
