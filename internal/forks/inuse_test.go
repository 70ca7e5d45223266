package forks

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
)

// The build must compile both modules from our forks. go.mod's replace
// lines name no version, so a version bump keeps them; but if one were
// dropped, or pinned to a version the require line no longer names, the
// build would silently use upstream and lose every change in
// third_party/patches (only a memory figure would notice, later).
//
// A test binary's build info lists no dependencies, so the test asks the
// binary itself: the source file each module's code was compiled from is
// under third_party/ for a fork, in the module cache for upstream. Under
// -trimpath both read path@version; then it asks the go command what the
// module resolves to, which is what the build used.
func TestForksInUse(t *testing.T) {
	for _, m := range []struct {
		mod, dir string
		fn       any
	}{
		{"charm.land/bubbletea/v2", "third_party/bubbletea", tea.NewProgram},
		{"github.com/charmbracelet/ultraviolet", "third_party/ultraviolet", uv.NewScreenBuffer},
	} {
		file, _ := runtime.FuncForPC(reflect.ValueOf(m.fn).Pointer()).FileLine(0)
		if filepath.IsAbs(file) {
			if !strings.Contains(filepath.ToSlash(file), "/"+m.dir+"/") {
				t.Errorf("fork not in use: %s was compiled from %s, not ./%s (go.mod's replace line)", m.mod, file, m.dir)
			}
			continue
		}
		out, err := exec.Command("go", "list", "-m", "-f", "{{with .Replace}}{{.Path}}{{end}}", m.mod).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", m.mod, err)
		}
		if got := strings.TrimSpace(string(out)); got != "./"+m.dir {
			t.Errorf("fork not in use: %s resolves to %q, not ./%s (go.mod's replace line)", m.mod, got, m.dir)
		}
	}
}
