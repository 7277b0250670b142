#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs each cmocka test program given, adds up cmocka's counts and ends with
#   host-c unit tests: N passed, N failed
# A program that crashed (no cmocka summary) or exited non-zero with nothing failed (a sanitizer's
# report at exit, a leak) counts as one more failure. The output of a program that failed is shown
# whole; of the others, one line each. Exit status: 0 only when nothing failed.
# The sanitizer options come from the environment (the Makefile sets ASAN_OPTIONS).
passed=0
failed=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT INT TERM

for program in "$@"; do
	name=$(basename "$program")
	CMOCKA_MESSAGE_OUTPUT=stdout timeout 300 "$program" >"$log" 2>&1
	status=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\.$/\1/p' "$log" | tail -n 1)
	# " N FAILED TEST(S)" counts failures and errors (a setup or teardown that failed) together.
	f=$(sed -n 's/^ *\([0-9][0-9]*\) FAILED TEST(S)$/\1/p' "$log" | tail -n 1)
	summary=$(grep -c '^\[==========\] [0-9][0-9]* test(s) run\.$' "$log")
	p=${p:-0}
	f=${f:-0}
	extra=0
	if [ "$summary" -eq 0 ]; then
		extra=1
		why="no cmocka summary: it crashed or was killed (status $status)"
	elif [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		extra=1
		why="exited with status $status after its tests passed: a sanitizer report or leak"
	fi
	passed=$((passed + p))
	failed=$((failed + f + extra))
	if [ "$f" -ne 0 ] || [ "$extra" -ne 0 ]; then
		echo "---- $name: $p passed, $((f + extra)) failed${why:+ ($why)}"
		cat "$log"
		echo "---- end of $name"
	else
		echo "$name: $p passed"
	fi
	why=
done

echo "host-c unit tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
