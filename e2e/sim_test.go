package e2e

import (
	"fmt"
)

// liveKeys is the environment (for env) giving the binary the sim's keys.
func liveKeys(banner map[string]string) string {
	return fmt.Sprintf("TRADEDECK_API_KEY=%s TRADEDECK_API_SECRET=%s TRADEDECK_APPLICATION_ID=%s",
		banner["api_key"], banner["api_secret"], banner["application_id"])
}
