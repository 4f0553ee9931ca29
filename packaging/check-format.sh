#!/usr/bin/env bash
# Checks that every C++ file of the tree is formatted as .clang-format says
# (Debian 12's clang-format 14); prints each offending file and line. With
# --fix, formats them in place instead.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tracked files and new ones not yet added (not the ignored build folders).
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h' ':!:tests/fixtures/**')
if [ "${1:-}" = "--fix" ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
if ! clang-format --dry-run --Werror "${files[@]}"; then
    echo "check-format: run packaging/check-format.sh --fix" >&2
    exit 1
fi
