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
