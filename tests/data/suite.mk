# suite.mk — a tiny multi-process test suite: make runs a shell recipe that runs the examples.
# failrun must fail allocations in the examples only, not in make or sh.
EXAMPLES ?= build/examples
check:
	$(EXAMPLES)/kvtest
	$(EXAMPLES)/csvstat < examples/csvstat/sample.csv
