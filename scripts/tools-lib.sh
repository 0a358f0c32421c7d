# Shared by the tool scripts: builds a pinned tool from its tools module
# into the user cache once per version, and prints the binary's path.
# Usage: tool_bin <tools module dir> <module path> <package path> <name>
tool_bin() {
	local dir="$1" module="$2" pkg="$3" name="$4" cache version bin
	cache="${XDG_CACHE_HOME:-$HOME/.cache}/berth/bin"
	mkdir -p "$cache"
	version="$(cd "$dir" && go list -m -f '{{.Version}}' "$module")"
	bin="$cache/$name-$version"
	if [[ ! -x "$bin" ]]; then
		echo "building $name $version from $dir (first use only)" >&2
		(cd "$dir" && go build -o "$bin.tmp" "$pkg") >&2
		mv -f "$bin.tmp" "$bin"
	fi
	echo "$bin"
}

# abspath prints the absolute path of an existing file.
abspath() {
	printf '%s/%s\n' "$(cd "$(dirname "$1")" && pwd)" "$(basename "$1")"
}

# cached_binary <dir> <name> <build function> prints <dir>/<name>, building
# it first when it is not there: `<build function> <file>` must build the
# binary into <file>. Concurrent callers wait on a lock and take the
# winner's binary; the build goes to a temporary file that is renamed into
# place, so an interrupted build never leaves a broken binary behind.
cached_binary() {
	local dir="$1" name="$2" build="$3" target="$1/$2"
	if [[ -f "$target" && -x "$target" ]]; then
		echo "$target"
		return 0
	fi
	mkdir -p "$dir"
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$dir/.build.lock"
		flock 9
		if [[ -f "$target" && -x "$target" ]]; then
			echo "$target"
			return 0
		fi
	fi
	# Global, so the EXIT trap still sees it after this function returns.
	cached_binary_tmp="$(mktemp "$dir/.$name.XXXXXX")"
	trap 'rm -f "$cached_binary_tmp"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	"$build" "$cached_binary_tmp" >&2
	chmod 0755 "$cached_binary_tmp"
	"$cached_binary_tmp" version >&2
	mv -f "$cached_binary_tmp" "$target"
	trap - EXIT INT TERM HUP
	echo "built $target" >&2
	echo "$target"
}
