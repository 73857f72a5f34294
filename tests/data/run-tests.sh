#!/bin/sh
# run-tests.sh — a careless test harness: runs the examples, hides their output and their exit
# status, and always reports success. failrun must still judge each test program by its own exit.
build=${1:-build}
"$build/examples/kvtest" >/dev/null 2>&1 || true
"$build/examples/csvstat" <examples/csvstat/sample.csv >/dev/null 2>&1 || true
( "$build/examples/kvtest" >/dev/null 2>&1 & wait ) || true
echo "all tests passed"
