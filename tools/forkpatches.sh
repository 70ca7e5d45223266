#!/usr/bin/env bash
# forkpatches.sh check|update [PATCH]|upstream DIR
#
# third_party/ultraviolet and third_party/bubbletea must be exactly the
# upstream releases go.mod requires plus the patches in third_party/patches,
# applied in the order of their names (third_party/patches/README.md).
#
#   check          rebuild upstream + patches in a scratch directory and
#                  compare with the tree; fails naming what differs.
#   update [NAME]  regenerate patch NAME (default: the last one) from the
#                  tree: the patches after it are taken back out of the tree,
#                  the ones before it are applied to upstream, and NAME is
#                  the difference. A NAME that does not exist yet (say
#                  0008-faster-flush.patch) is appended as the last patch; it
#                  needs a write-up (0008-faster-flush.md) before check passes.
#   upstream DIR   write upstream as vendored (no patches) into DIR.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tp=$root/third_party
pd=$tp/patches

# directory in third_party, module path
modules=(
	"ultraviolet github.com/charmbracelet/ultraviolet"
	"bubbletea charm.land/bubbletea/v2"
)
# Upstream's repository furniture, not vendored (top-level names).
not_vendored=(.github .gitignore .golangci.yml .goreleaser.yml Taskfile.yaml README.md TUTORIAL.md UPGRADE_GUIDE_V2.md)

die() { echo "forkpatches: $*" >&2; exit 1; }

# version MOD: the version tradedeck's go.mod requires (the replace
# lines name no version, so this is the one upstream the fork is based on).
version() {
	(cd "$root" && go list -m -f '{{.Version}}' "$1")
}

# upstream DIR: the released modules, as vendored, into DIR/<name>.
upstream() {
	local out=$1 m name mod ver src
	for m in "${modules[@]}"; do
		read -r name mod <<<"$m"
		ver=$(version "$mod")
		[ -n "$ver" ] || die "go.mod requires no version of $mod"
		# Outside the module (go.sum has no sums for replaced modules): the
		# download is checked against the checksum database instead.
		src=$(cd "$out" && GOFLAGS= go mod download -json "$mod@$ver" | awk -F'"' '/"Dir":/ {print $4}')
		[ -d "$src" ] || die "cannot download $mod@$ver"
		cp -R "$src" "$out/$name"
		chmod -R u+w "$out/$name"
		for n in "${not_vendored[@]}"; do rm -rf "${out:?}/$name/$n"; done
	done
}

patches() { find "$pd" -maxdepth 1 -name '*.patch' | LC_ALL=C sort; }

apply() { # DIR PATCH [-R]
	(cd "$1" && git apply --whitespace=nowarn -p1 ${3:-} "$2") ||
		die "$(basename "$2") does not apply${3:+ in reverse}"
}

# tree DIR: the forks as they are now, into DIR/<name>.
tree() {
	local m name
	for m in "${modules[@]}"; do
		read -r name _ <<<"$m"
		cp -R "$tp/$name" "$1/$name"
	done
}

# difference OLD NEW: a patch from OLD to NEW (sibling directories holding
# the modules), paths relative to third_party: the first component of each
# path (OLD or NEW; git names a new file by NEW on both sides) is dropped.
difference() {
	(cd "$(dirname "$1")" && git -c core.quotepath=off diff --no-index --no-color --no-ext-diff --no-renames \
		"$(basename "$1")" "$(basename "$2")" || true) |
		sed -E 's#^(diff --git a/)[^/]+/(.*) b/[^/]+/#\1\2 b/#; s#^(--- a/)[^/]+/#\1#; s#^(\+\+\+ b/)[^/]+/#\1#'
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/base" "$scratch/tree"

case "${1:-}" in
check)
	upstream "$scratch/base"
	n=0
	for p in $(patches); do
		[ -f "${p%.patch}.md" ] || die "$(basename "$p") has no write-up ($(basename "${p%.patch}.md"))"
		apply "$scratch/base" "$p"
		n=$((n + 1))
	done
	tree "$scratch/tree"
	d=$(difference "$scratch/base" "$scratch/tree")
	if [ -n "$d" ]; then
		echo "$d" | head -60 >&2
		die "third_party differs from upstream + $n patches (above); if the change is meant, run: tools/forkpatches.sh update [NAME]"
	fi
	echo "forkpatches: third_party = upstream + $n patches"
	;;
update)
	all=($(patches))
	name=${2:-}
	if [ -z "$name" ]; then
		[ ${#all[@]} -gt 0 ] || die "no patches yet: name one"
		name=$(basename "${all[-1]}")
	fi
	case $name in *.patch) ;; *) name=$name.patch ;; esac
	target=$pd/$name
	upstream "$scratch/base"
	tree "$scratch/tree"
	later=()
	for p in "${all[@]}"; do
		if [[ "$p" < "$target" ]]; then
			apply "$scratch/base" "$p"
		elif [[ "$p" > "$target" ]]; then
			later=("$p" "${later[@]}")
		fi
	done
	[ -f "$target" ] || [ ${#later[@]} -eq 0 ] || die "$name would not be the last patch: name it after $(basename "${all[-1]}")"
	for p in "${later[@]}"; do apply "$scratch/tree" "$p" -R; done
	header="Subject: ${name%.patch}"$'\n'"Write-up: ${name%.patch}.md"$'\n'
	if [ -f "$target" ]; then header=$(sed '/^diff --git /,$d' "$target"); header+=$'\n'; fi
	d=$(difference "$scratch/base" "$scratch/tree")
	[ -n "$d" ] || die "$name would be empty"
	printf '%s\n%s\n' "$header" "$d" >"$target.new"
	mv "$target.new" "$target"
	echo "forkpatches: wrote $name"
	;;
upstream)
	[ -n "${2:-}" ] || die "usage: $0 upstream DIR"
	mkdir -p "$2"
	upstream "$2"
	;;
*)
	die "usage: $0 check | update [NAME] | upstream DIR"
	;;
esac
