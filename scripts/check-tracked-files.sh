#!/usr/bin/env bash
# Fails when git tracks build output: an executable or object file (ELF,
# Mach-O, PE, a Go archive), a Go test binary (*.test) or any file over
# 2 MiB. Build output belongs in .gitignore; a 43 MB test binary once sat
# at the root for weeks because nothing looked.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

limit=$((2 << 20))
bad=()
# Sizes of every tracked blob in one call.
while read -r size f; do
	((size > limit)) && bad+=("$f ($size bytes, over $limit)")
done < <(git ls-files --format='%(objectname) %(path)' | git cat-file --batch-check='%(objectsize) %(rest)')
while IFS= read -r -d '' f; do
	case "$f" in
	*.test | *.exe | *.o | *.a | *.so | *.dylib) bad+=("$f (build output by its name)") ;;
	esac
done < <(git ls-files -z)
# Only files git sees as binary can be executables; read their first bytes.
while IFS= read -r f; do
	[[ -f "$f" && ! -L "$f" ]] || continue
	magic=$(head -c 4 -- "$f" | od -An -tx1 | tr -d ' \n')
	case "$magic" in
	7f454c46) bad+=("$f (an ELF executable or object)") ;;
	cffaedfe | cefaedfe | feedfacf | feedface | cafebabe) bad+=("$f (a Mach-O executable)") ;;
	4d5a*) bad+=("$f (a Windows executable)") ;;
	213c6172) bad+=("$f (an archive: Go package or object library)") ;;
	esac
done < <(git ls-files --eol | awk '$1 == "i/-text" { sub(/^[^\t]*\t/, ""); print }')

if ((${#bad[@]} > 0)); then
	echo "check-tracked-files: FAIL: git tracks build output; remove it (git rm --cached) and ignore it in .gitignore:" >&2
	printf '  %s\n' "${bad[@]}" >&2
	exit 1
fi
echo "check-tracked-files: no build output tracked ($(git ls-files | wc -l) files)" >&2
