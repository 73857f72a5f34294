# libfail — top-level build. `make` builds, `make check` runs every test, `make demo` shows it.
# Outputs go to build/. See README.md.

CC ?= cc
BUILD := build
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARNINGS) $(CFLAGS) -Ilibfail -Ilibfail/include -Iinjector -Icoverage \
              -I$(BUILD)/gen
# Code that runs inside the target: position independent, private symbols, TLS that never allocates.
# Frame pointers: sanitizers unwind allocation stacks by them, through our interposers too.
# Without -Iinjector: the target's code includes only its own headers and libfail/format/, never
# failrun's.
CORE_CFLAGS := $(filter-out -Iinjector,$(ALL_CFLAGS)) -fPIC -fvisibility=hidden -ftls-model=initial-exec -fno-omit-frame-pointer
# Examples and test programs: plain debug builds, so reports name exact lines.
EXAMPLE_CFLAGS := -std=c11 -g -O0 -Wall -Wextra -Werror

# The core's runtime and fork mode are in folders of their own (libfail/runtime/, libfail/fork/);
# the objects link in the order they had before the move.
CORE_SOURCES := libfail/format/text.c libfail/format/record.c libfail/format/plan.c \
                libfail/stack.c libfail/runtime/runtime.c libfail/runtime/records.c \
                libfail/runtime/sites.c libfail/runtime/exits.c libfail/runtime/syscalls.c \
                libfail/live.c libfail/fork/forkmode.c libfail/fork/forkchild.c \
                libfail/fork/forkstart.c libfail/gcovdump.c libfail/unwinder.c \
                libfail/boundary.c libfail/execenv.c libfail/elfsym.c libfail/fork/testcase.c \
                libfail/runtime/invocation.c libfail/fork/forkrestore.c
CORE_OBJECTS := $(CORE_SOURCES:%.c=$(BUILD)/pic/%.o)
# failrun, part by part from the bottom up (see doc/design.md, "Layout"): the record format it shares
# with the target, then each part of the runner, then coverage analysis.
RUNNER_PARTS := base store symbols verdict kernel engine report cli
FAILRUN_SOURCES := libfail/format/text.c libfail/format/record.c libfail/format/plan.c \
                   $(foreach part,$(RUNNER_PARTS),$(sort $(wildcard injector/$(part)/*.c))) \
                   $(sort $(wildcard coverage/*.c))
FAILRUN_OBJECTS := $(FAILRUN_SOURCES:%.c=$(BUILD)/obj/%.o)
FAILRUN_LIBS := -lsqlite3 -ljansson -ldw -lelf -lpthread
HEADERS := $(wildcard libfail/*.h libfail/runtime/*.h libfail/fork/*.h libfail/format/*.h \
                     libfail/format/*.def libfail/include/*.h injector/*/*.h coverage/*.h)

LIBRARIES := $(BUILD)/libfail.so $(BUILD)/libfail.a $(BUILD)/libfail-preload.so \
             $(BUILD)/libfail-preload-io.so $(BUILD)/libfail-kernel.so $(BUILD)/libfail-audit.so \
             $(BUILD)/libfail-audit.supp $(BUILD)/libfail-valgrind.supp
EXAMPLES := $(BUILD)/examples/kvtest $(BUILD)/examples/csvstat $(BUILD)/examples/test_kv \
            $(BUILD)/examples/relay \
            $(BUILD)/examples/cov/wordfreq-classic $(BUILD)/examples/cov/wordfreq-nofail \
            $(BUILD)/examples/cov/kvtest $(BUILD)/examples/cov/csvstat
UNIT_TESTS := $(addprefix $(BUILD)/tests/,test_core test_classify test_ingest test_signature \
                test_symbolise test_oom test_policy test_coverage test_findings test_live \
                test_environment test_source test_kmem test_ktitle test_kernelcov test_pack)
TEST_PROGRAMS := $(patsubst tests/programs/%.c,$(BUILD)/tests/programs/%,\
                   $(filter-out tests/programs/lib%.c,$(wildcard tests/programs/*.c))) \
                   $(BUILD)/tests/programs/libsetenv.so $(BUILD)/tests/programs/libhello.so \
                   $(BUILD)/tests/programs/libmaker.so $(BUILD)/tests/programs/covcrash-stripped \
                   $(BUILD)/tests/cov/iolegs $(BUILD)/tests/cov/plainleg $(BUILD)/tests/cov/testcases \
                   $(BUILD)/tests/programs/testcases_cxx \
                   $(BUILD)/tests/programs/callercrash \
                   $(BUILD)/tests/programs/callercrash-O2 $(BUILD)/tests/programs/boundary/test_shelf \
                   $(BUILD)/tests/programs/boundary/got_probe $(BUILD)/tests/programs/boundary/spin_shelf \
                   $(BUILD)/tests/programs/boundary/abi_probe $(BUILD)/tests/programs/boundary/abi_probe-now

.PHONY: all deps check check-kernel unit integration demo demo-cov bench clean install uninstall fuzz \
        realworld realworld-fork suites
all: $(LIBRARIES) $(BUILD)/failrun $(EXAMPLES)

deps:
	@sh tools/deps.sh

$(BUILD)/pic/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The bundled suppression rules, compiled in as one C string (suppress.c includes it).
$(BUILD)/gen/suppress_default.inc: injector/verdict/default.supp
	@mkdir -p $(dir $@)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $< >$@
$(BUILD)/obj/injector/verdict/suppress.o: $(BUILD)/gen/suppress_default.inc

# libfail.so carries the interposed allocator too: a program linked with it can drive failures
# in-process (libfail.h). libfail-preload.so is the same code, for LD_PRELOAD; with both loaded
# the first in symbol order serves every call, API included, so they never disagree.
LIBFAIL_OBJECTS := $(CORE_OBJECTS) $(BUILD)/pic/libfail/api.o $(BUILD)/pic/injector/preload/preload.o
$(BUILD)/libfail.so: $(LIBFAIL_OBJECTS)
	$(CC) -shared -Wl,-soname,libfail.so.0 -o $@ $^ -lunwind -ldl -lpthread
	ln -sf libfail.so $(BUILD)/libfail.so.0

$(BUILD)/libfail.a: $(LIBFAIL_OBJECTS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libfail-preload.so: $(LIBFAIL_OBJECTS)
	$(CC) -shared -o $@ $^ -lunwind -ldl -lpthread

# For `failrun run --faults io`: the preload plus the I/O interposers (injector/preload/preload_io.c),
# kept out of libfail-preload.so so that campaigns without it never touch read, write or fopen.
$(BUILD)/libfail-preload-io.so: $(LIBFAIL_OBJECTS) $(BUILD)/pic/injector/preload/preload_io.o
	$(CC) -shared -o $@ $^ -lunwind -ldl -lpthread

# For `failrun kernel`: the preload plus wrappers of system calls (injector/preload/kernel.c), kept out
# of libfail-preload.so so that ordinary campaigns never touch read, write or open.
$(BUILD)/libfail-kernel.so: $(LIBFAIL_OBJECTS) $(BUILD)/pic/injector/preload/kernel.o \
                           $(BUILD)/pic/injector/preload/dispatch.o
	$(CC) -shared -o $@ $^ -lunwind -ldl -lpthread

# The LD_AUDIT module of scoped campaigns (injector/preload/audit.c): what the code under test
# returned to its caller. It runs in a link namespace of its own and reaches the preload by its
# symbols.
# It needs no C library (auditlibc.c): one linked in would be loaded a second time, into the
# module's namespace, in every process of the campaign.
$(BUILD)/libfail-audit.so: $(BUILD)/pic/injector/preload/audit.o $(BUILD)/pic/libfail/format/text.o \
                           $(BUILD)/pic/injector/preload/auditlibc.o
	$(CC) -shared -nostdlib -Wl,-z,defs -o $@ $^
$(BUILD)/pic/injector/preload/auditlibc.o: injector/preload/auditlibc.c
	@mkdir -p $(dir $@)
	$(CC) $(CORE_CFLAGS) -ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns \
	    -fno-stack-protector -c -o $@ $<
# Beside it, the LeakSanitizer rules of AddressSanitizer programs run under it.
$(BUILD)/libfail-audit.supp: injector/preload/audit.supp
	@mkdir -p $(dir $@)
	cp $< $@
# Beside the preload, the memcheck rules for it, for programs a harness runs under valgrind.
$(BUILD)/libfail-valgrind.supp: injector/preload/valgrind.supp
	@mkdir -p $(dir $@)
	cp $< $@

# The names of this machine's system calls by number, from the C library's own header, for
# reports of trapped calls (ingest.c's function_name).
$(BUILD)/gen/syscall_names.inc:
	@mkdir -p $(dir $@)
	echo '#include <sys/syscall.h>' | $(CC) -E -dM - | \
	    sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/[\2] = "\1",/p' | sort -t'[' -k2 -n >$@
$(BUILD)/obj/injector/store/ingest.o: $(BUILD)/gen/syscall_names.inc

$(BUILD)/failrun: $(FAILRUN_OBJECTS)
	$(CC) -o $@ $^ $(FAILRUN_LIBS)

$(BUILD)/examples/kvtest: examples/kvstore/kv.c examples/kvstore/kvtest.c examples/kvstore/kv.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ examples/kvstore/kv.c examples/kvstore/kvtest.c

$(BUILD)/examples/csvstat: examples/csvstat/csv.c examples/csvstat/csvstat.c examples/csvstat/csv.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ examples/csvstat/csv.c examples/csvstat/csvstat.c

# wordfreq, written twice (classic error legs / LF_NOFAIL), built with --coverage for
# `failrun cov`. No link flag: when a run dies of a signal the preload finds each module's own
# libgcov exit function in its symbol table (libfail/gcovdump.c), so crashing runs keep their
# coverage. The .gcno files land beside the binaries.
COV_CFLAGS := $(EXAMPLE_CFLAGS) --coverage
$(BUILD)/examples/cov/wordfreq-classic: examples/wordfreq/classic/wordfreq.c \
                                        examples/wordfreq/classic/main.c \
                                        examples/wordfreq/classic/wordfreq.h
	@mkdir -p $(dir $@)
	$(CC) $(COV_CFLAGS) -o $@ examples/wordfreq/classic/wordfreq.c examples/wordfreq/classic/main.c

$(BUILD)/examples/cov/wordfreq-nofail: examples/wordfreq/nofail/wordfreq.c \
                                       examples/wordfreq/nofail/main.c \
                                       examples/wordfreq/nofail/wordfreq.h $(BUILD)/libfail.so
	@mkdir -p $(dir $@)
	$(CC) $(COV_CFLAGS) -Ilibfail/include -o $@ examples/wordfreq/nofail/wordfreq.c \
	    examples/wordfreq/nofail/main.c -L$(BUILD) -Wl,-rpath,'$$ORIGIN/../..' -l:libfail.so

$(BUILD)/examples/cov/kvtest: examples/kvstore/kv.c examples/kvstore/kvtest.c examples/kvstore/kv.h
	@mkdir -p $(dir $@)
	$(CC) $(COV_CFLAGS) -o $@ examples/kvstore/kv.c examples/kvstore/kvtest.c

$(BUILD)/examples/cov/csvstat: examples/csvstat/csv.c examples/csvstat/csvstat.c examples/csvstat/csv.h
	@mkdir -p $(dir $@)
	$(CC) $(COV_CFLAGS) -o $@ examples/csvstat/csv.c examples/csvstat/csvstat.c

# The I/O error legs' program with --coverage, for failrun cov with --faults io.
$(BUILD)/tests/cov/iolegs: tests/programs/iolegs.c
	@mkdir -p $(dir $@)
	$(CC) $(COV_CFLAGS) -o $@ $<

# A suite's two programs with --coverage: a leg one of them runs without a fault is not deletable.
$(BUILD)/tests/cov/plainleg: tests/programs/plainleg.c
	@mkdir -p $(dir $@)
	$(CC) $(COV_CFLAGS) -o $@ $<

# A cmocka suite: its runner is built in (libfail/fork/testcase.c).
$(BUILD)/tests/programs/testcases_cmocka: tests/programs/testcases_cmocka.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $< -lcmocka

# A C++ suite whose tests throw: fork mode's test-case trampoline must not stand in the unwinder's way.
$(BUILD)/tests/programs/testcases_cxx: tests/programs/testcases_cxx.cpp
	@mkdir -p $(dir $@)
	g++ -std=c++17 -g -O0 -Wall -Wextra -Werror -o $@ $<

# A suite of test cases in one process with --coverage: fork children that stop at the end of
# their test case still write their coverage.
$(BUILD)/tests/cov/testcases: tests/programs/testcases.c
	@mkdir -p $(dir $@)
	$(CC) $(COV_CFLAGS) -o $@ $<

$(BUILD)/examples/relay: examples/relay/relay.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $<

# ---- tests ----

$(BUILD)/tests/test_core: tests/unit/test_core.c $(BUILD)/pic/libfail/format/text.o \
                          $(BUILD)/pic/libfail/format/plan.o $(BUILD)/pic/libfail/format/record.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka

$(BUILD)/tests/test_classify: tests/unit/test_classify.c $(BUILD)/obj/injector/verdict/classify.o \
                             $(BUILD)/obj/injector/verdict/boundary.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka

$(BUILD)/tests/test_kmem: tests/unit/test_kmem.c $(BUILD)/obj/injector/kernel/kmem.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka

$(BUILD)/tests/test_ktitle: tests/unit/test_ktitle.c $(BUILD)/obj/injector/kernel/ktitle.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka

# Without PIE: the test program stands in for vmlinux, its addresses those of its ELF file.
$(BUILD)/tests/test_kernelcov: tests/unit/test_kernelcov.c \
                               $(filter-out $(BUILD)/obj/injector/cli/failrun.o,$(FAILRUN_OBJECTS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O0 -fno-pie -no-pie -o $@ $^ -lcmocka $(FAILRUN_LIBS)

$(BUILD)/tests/test_findings: tests/unit/test_findings.c $(BUILD)/obj/injector/verdict/sanitizer.o \
                              $(BUILD)/obj/injector/verdict/suppress.o $(BUILD)/obj/injector/base/util.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka

$(BUILD)/tests/test_pack: tests/unit/test_pack.c $(BUILD)/obj/injector/base/pack.o \
                          $(BUILD)/obj/injector/base/util.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka -lpthread

$(BUILD)/tests/test_ingest: tests/unit/test_ingest.c $(BUILD)/obj/injector/store/ingest.o \
                            $(BUILD)/obj/injector/base/util.o $(BUILD)/obj/libfail/format/record.o \
                            $(BUILD)/obj/libfail/format/text.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka

$(BUILD)/tests/test_coverage: tests/unit/test_coverage.c $(BUILD)/obj/coverage/covanalysis.o \
                              $(BUILD)/obj/injector/verdict/policy.o $(FAILRUN_OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/obj/coverage/covanalysis.o $(BUILD)/obj/injector/verdict/policy.o \
	    $(filter-out $(BUILD)/obj/injector/cli/failrun.o $(BUILD)/obj/coverage/covanalysis.o \
	    $(BUILD)/obj/injector/verdict/policy.o,$(FAILRUN_OBJECTS)) -lcmocka $(FAILRUN_LIBS)

$(BUILD)/tests/test_environment: tests/unit/test_environment.c $(FAILRUN_OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(filter-out $(BUILD)/obj/injector/cli/failrun.o,$(FAILRUN_OBJECTS)) \
	    -lcmocka $(FAILRUN_LIBS)

$(BUILD)/tests/test_source: tests/unit/test_source.c $(FAILRUN_OBJECTS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(filter-out $(BUILD)/obj/injector/cli/failrun.o,$(FAILRUN_OBJECTS)) \
	    -lcmocka $(FAILRUN_LIBS)

$(BUILD)/tests/test_signature: tests/unit/test_signature.c $(BUILD)/libfail.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 -o $@ $^ -lunwind -lcmocka

# The live-block table, called directly (internal.h) from a program linked with libfail.a.
$(BUILD)/tests/test_live: tests/unit/test_live.c $(BUILD)/libfail.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O1 -o $@ $^ -lunwind -lcmocka -lpthread

# Linked with libfail.so, which interposes the allocator in-process.
$(BUILD)/tests/test_oom: tests/unit/test_oom.c libfail/include/libfail/cmocka.h $(BUILD)/libfail.so
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -g -O1 -o $@ $< -L$(BUILD) -Wl,-rpath,'$$ORIGIN/..' -l:libfail.so \
	    -lcmocka -ldl -lpthread

$(BUILD)/tests/test_policy: tests/unit/test_policy.c $(BUILD)/libfail.so
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -g -O1 -o $@ $< -L$(BUILD) -Wl,-rpath,'$$ORIGIN/..' -l:libfail.so \
	    -lcmocka -ldl -lpthread

# The kvstore example's unit tests under the OOM loop: they find its planted bugs, so they fail;
# tests/integration/test_oom.sh checks that they fail in exactly the expected ways.
$(BUILD)/examples/test_kv: examples/kvstore/test_kv.c examples/kvstore/kv.c examples/kvstore/kv.h \
                           libfail/include/libfail/cmocka.h $(BUILD)/libfail.so
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -D_GNU_SOURCE -Ilibfail/include -o $@ examples/kvstore/test_kv.c \
	    examples/kvstore/kv.c -L$(BUILD) -Wl,-rpath,'$$ORIGIN/..' -l:libfail.so -lcmocka -ldl

# The symboliser alone (no database): the files of injector/symbols/ but source.c.
SYMBOLISER_SOURCES := $(filter-out injector/symbols/source.c,$(wildcard injector/symbols/*.c))
$(BUILD)/tests/test_symbolise: tests/unit/test_symbolise.c $(SYMBOLISER_SOURCES) injector/symbols/symbolise.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNINGS) -g -O1 -Iinjector -o $@ tests/unit/test_symbolise.c \
	    $(SYMBOLISER_SOURCES) -ldw -lelf -lcmocka

# What the symboliser says about a file and offsets, for tests/integration/test_debuginfo.sh.
TEST_TOOLS := $(BUILD)/tests/symbolise_probe $(BUILD)/tests/kernel/workload \
              $(BUILD)/tests/gcovdata_compare
# The in-process gcov reader checked against gcov itself.
GCOV_READER_SOURCES := coverage/gcovread.c coverage/gcovnotes.c coverage/gcovplan.c coverage/gcovdata.c
$(BUILD)/tests/gcovdata_compare: tests/integration/gcovdata_compare.c $(GCOV_READER_SOURCES) \
                                 coverage/gcovdata.h coverage/gcovint.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ tests/integration/gcovdata_compare.c $(GCOV_READER_SOURCES) -ljansson
$(BUILD)/tests/symbolise_probe: tests/integration/symbolise_probe.c $(SYMBOLISER_SOURCES) \
                                injector/symbols/symbolise.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARNINGS) -g -O1 -Iinjector -o $@ \
	    tests/integration/symbolise_probe.c $(SYMBOLISER_SOURCES) -ldw -lelf

# The examples built with AddressSanitizer and UBSan, and with jemalloc, for the tests.
TARGET_VARIANTS := $(BUILD)/tests/asan/kvtest $(BUILD)/tests/asan/csvstat $(BUILD)/tests/jemalloc/kvtest \
                   $(BUILD)/tests/asan/boundary/test_shelf
$(BUILD)/tests/asan/kvtest: examples/kvstore/kv.c examples/kvstore/kvtest.c examples/kvstore/kv.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -fsanitize=address,undefined -o $@ examples/kvstore/kv.c \
	    examples/kvstore/kvtest.c

$(BUILD)/tests/asan/csvstat: examples/csvstat/csv.c examples/csvstat/csvstat.c examples/csvstat/csv.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -fsanitize=address,undefined -o $@ examples/csvstat/csv.c \
	    examples/csvstat/csvstat.c

$(BUILD)/tests/programs/libctor.so $(BUILD)/tests/programs/libsetenv.so \
$(BUILD)/tests/programs/libhello.so $(BUILD)/tests/programs/libmaker.so: \
$(BUILD)/tests/programs/lib%.so: tests/programs/lib%.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -fPIC -shared -o $@ $<

$(BUILD)/tests/programs/%: tests/programs/%.c $(BUILD)/tests/programs/libctor.so
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -D_GNU_SOURCE -o $@ $< -L$(BUILD)/tests/programs -Wl,-rpath,'$$ORIGIN' \
	    -lctor -lpthread

# A debug allocator that a library calls back (test_wrapper.sh): linked with libmaker.so.
$(BUILD)/tests/programs/debugalloc: tests/programs/debugalloc.c $(BUILD)/tests/programs/libmaker.so
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -D_GNU_SOURCE -o $@ $< -L$(BUILD)/tests/programs -Wl,-rpath,'$$ORIGIN' \
	    -lmaker

# A library (greet.c) and its test (test_greet.c) in one executable, for --source and the
# crashes of a caller that uses what the library returned (test_caller_crash.sh).
$(BUILD)/tests/programs/callercrash: tests/programs/callercrash/greet.c \
                                     tests/programs/callercrash/test_greet.c \
                                     tests/programs/callercrash/greet.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $(filter %.c,$^)

# A shared library with C's error conventions and its test, for what the library returned to its
# caller (test_boundary.sh).
$(BUILD)/tests/programs/boundary/libshelf.so: tests/programs/boundary/shelf.c \
                                              tests/programs/boundary/shelf.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/programs/boundary/test_shelf: tests/programs/boundary/test_shelf.c \
                                             $(BUILD)/tests/programs/boundary/libshelf.so
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $< -L$(BUILD)/tests/programs/boundary -Wl,-rpath,'$$ORIGIN' -lshelf
$(BUILD)/tests/programs/boundary/spin_shelf: tests/programs/boundary/spin_shelf.c \
                                             $(BUILD)/tests/programs/boundary/libshelf.so
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $< -L$(BUILD)/tests/programs/boundary -Wl,-rpath,'$$ORIGIN' -lshelf
# Whether its calls into libshelf.so went through the audit's trampoline (test_boundary.sh).
$(BUILD)/tests/programs/boundary/got_probe: tests/programs/boundary/got_probe.c \
                                            $(BUILD)/tests/programs/boundary/libshelf.so
	$(CC) $(EXAMPLE_CFLAGS) -Wl,-z,lazy -o $@ $< -L$(BUILD)/tests/programs/boundary \
	    -Wl,-rpath,'$$ORIGIN' -lshelf -ldl
# Every way of passing arguments and results, through the audit's trampoline (test_boundary.sh);
# the probe twice: bound lazily, and at load (-z now).
$(BUILD)/tests/programs/boundary/libabi.so: tests/programs/boundary/abi.c tests/programs/boundary/abi.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -fPIC -shared -o $@ $<
$(BUILD)/tests/programs/boundary/abi_probe: tests/programs/boundary/abi_probe.c \
                                            $(BUILD)/tests/programs/boundary/libabi.so
	$(CC) $(EXAMPLE_CFLAGS) -Wl,-z,lazy -o $@ $< -L$(BUILD)/tests/programs/boundary \
	    -Wl,-rpath,'$$ORIGIN' -labi
$(BUILD)/tests/programs/boundary/abi_probe-now: tests/programs/boundary/abi_probe.c \
                                                $(BUILD)/tests/programs/boundary/libabi.so
	$(CC) $(EXAMPLE_CFLAGS) -Wl,-z,now -o $@ $< -L$(BUILD)/tests/programs/boundary \
	    -Wl,-rpath,'$$ORIGIN' -labi

# ... and both with AddressSanitizer: the boundary under ASan's interceptors (test_boundary.sh).
$(BUILD)/tests/asan/boundary/libshelf.so: tests/programs/boundary/shelf.c tests/programs/boundary/shelf.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -fsanitize=address -fPIC -shared -o $@ $<
$(BUILD)/tests/asan/boundary/test_shelf: tests/programs/boundary/test_shelf.c \
                                         $(BUILD)/tests/asan/boundary/libshelf.so
	$(CC) $(EXAMPLE_CFLAGS) -fsanitize=address -o $@ $< -L$(BUILD)/tests/asan/boundary \
	    -Wl,-rpath,'$$ORIGIN' -lshelf

# The same at -O2, where greet.c's static helper is inlined into its caller.
$(BUILD)/tests/programs/callercrash-O2: tests/programs/callercrash/greet.c \
                                        tests/programs/callercrash/test_greet.c \
                                        tests/programs/callercrash/greet.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -O2 -o $@ $(filter %.c,$^)

# A --coverage program over a --coverage shared library, neither linked with an export flag,
# whose fault runs crash: each module must dump its own coverage (libfail/gcovdump.c). The
# stripped copy of the library cannot, and failrun cov must say so (test_cov_crash.sh).
$(BUILD)/tests/programs/libcovlib.so $(BUILD)/tests/programs/libcovlib-stripped.so: \
                                                                     tests/programs/libcovlib.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) --coverage -fPIC -shared -o $@ $<
	case $@ in *-stripped.so) strip $@;; esac

$(BUILD)/tests/programs/covcrash: tests/programs/covcrash.c $(BUILD)/tests/programs/libcovlib.so
	$(CC) $(EXAMPLE_CFLAGS) --coverage -o $@ $< -L$(BUILD)/tests/programs \
	    -Wl,-rpath,'$$ORIGIN' -l:libcovlib.so

$(BUILD)/tests/programs/covcrash-stripped: tests/programs/covcrash.c \
                                           $(BUILD)/tests/programs/libcovlib-stripped.so
	$(CC) $(EXAMPLE_CFLAGS) --coverage -o $@ $< -L$(BUILD)/tests/programs \
	    -Wl,-rpath,'$$ORIGIN' -l:libcovlib-stripped.so

# These use libfail.h, so they link libfail.so (the preload's copy serves them under failrun).
$(BUILD)/tests/programs/policy $(BUILD)/tests/programs/failnth: \
$(BUILD)/tests/programs/%: tests/programs/%.c $(BUILD)/libfail.so
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -Ilibfail/include -o $@ $< -L$(BUILD) -Wl,-rpath,'$$ORIGIN/../..' \
	    -l:libfail.so

unit: $(UNIT_TESTS)
	@status=0; for test in $(UNIT_TESTS); do $$test || status=1; done; exit $$status

integration: all $(TEST_PROGRAMS) $(TARGET_VARIANTS) $(TEST_TOOLS)
	@sh tests/integration/run.sh

# Every test. Unit tests first: they are fast and pinpoint a broken core.
check:
	@sh tools/deps.sh
	@$(MAKE) --no-print-directory all $(UNIT_TESTS) $(TEST_PROGRAMS) $(TARGET_VARIANTS) $(TEST_TOOLS)
	@sh tests/run-all.sh $(UNIT_TESTS)

# The kernel's fail-nth rules, checked in a qemu VM booting a fault-injection kernel built from
# Debian's linux-source-6.1 (tests/kernel/; cached, the first run builds it). Installs nothing:
# tools/deps-kernel.sh names the packages.
# What failrun kernel sweeps, in the VM and on the host: many system calls from one program.
$(BUILD)/tests/kernel/workload: tests/kernel/workload.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -D_GNU_SOURCE -o $@ $< -lpthread -lrt

# Makes the kernel warn (LKDTM), for the test of kernel findings in the VM.
$(BUILD)/tests/kernel/provoke: tests/kernel/provoke.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -D_GNU_SOURCE -o $@ $<

$(BUILD)/tests/kernel/failnth_probe: tests/kernel/failnth_probe.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< -lpthread

check-kernel:
	@$(MAKE) --no-print-directory all $(BUILD)/tests/kernel/failnth_probe \
	    $(BUILD)/tests/kernel/workload $(BUILD)/tests/kernel/provoke
	@sh tests/kernel/check.sh

$(BUILD)/tests/bench/alloc_loop: tests/bench/alloc_loop.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $<

# Fuzzing with libFuzzer (clang): the record reader, the plan parser and failrun run's command
# line parser, FUZZ_SECONDS each, on
# the corpus kept in tests/fuzz/corpus (new inputs found are added to it).
FUZZ_SECONDS ?= 18
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
               -fno-sanitize-recover=undefined -Ilibfail -Ilibfail/include -Iinjector -Icoverage -I$(BUILD)/gen
$(BUILD)/fuzz/fuzz_records: tests/fuzz/fuzz_records.c injector/store/ingest.c injector/base/util.c \
                            libfail/format/record.c libfail/format/text.c $(HEADERS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_records.c injector/store/ingest.c injector/base/util.c \
	    libfail/format/record.c libfail/format/text.c

$(BUILD)/fuzz/fuzz_plan: tests/fuzz/fuzz_plan.c libfail/format/plan.c libfail/format/text.c $(HEADERS)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_plan.c libfail/format/plan.c libfail/format/text.c

FUZZ_CLI_SOURCES := $(filter-out injector/cli/failrun.c injector/cli/cmd_run.c,$(FAILRUN_SOURCES))
$(BUILD)/fuzz/fuzz_cli: tests/fuzz/fuzz_cli.c $(FUZZ_CLI_SOURCES) injector/cli/cmd_run.c $(HEADERS) \
                       $(BUILD)/gen/suppress_default.inc
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_cli.c $(FUZZ_CLI_SOURCES) $(FAILRUN_LIBS)

fuzz: $(BUILD)/fuzz/fuzz_records $(BUILD)/fuzz/fuzz_plan $(BUILD)/fuzz/fuzz_cli
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS)

# The campaign benchmark's target: BENCH_SITES generated allocation sites, each called
# BENCH_ROUNDS times (see tests/bench/gen_sites.sh).
BENCH_SITES := 600
BENCH_ROUNDS := 8
$(BUILD)/tests/bench/sites.c: tests/bench/gen_sites.sh Makefile
	@mkdir -p $(dir $@)
	sh tests/bench/gen_sites.sh $(BENCH_SITES) $(BENCH_ROUNDS) >$@

$(BUILD)/tests/bench/sites-exit.c: tests/bench/gen_sites.sh Makefile
	@mkdir -p $(dir $@)
	sh tests/bench/gen_sites.sh $(BENCH_SITES) $(BENCH_ROUNDS) exit >$@

$(BUILD)/tests/bench/sites $(BUILD)/tests/bench/sites-exit: %: %.c
	$(CC) -std=c11 -O1 -g -Wall -Wextra -Werror -o $@ $<

$(BUILD)/tests/bench/symbolise_sites: tests/bench/symbolise_sites.c \
                                      $(filter-out $(BUILD)/obj/injector/cli/failrun.o,$(FAILRUN_OBJECTS))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(FAILRUN_LIBS)

$(BUILD)/tests/bench/timed: tests/bench/timed.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

# The naive fail-the-N-th-call sweep that tests/bench/campaigns.sh measures libfail against.
$(BUILD)/tests/bench/naive_nth.so: tests/bench/naive_nth.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -shared -fPIC -o $@ $< -ldl

$(BUILD)/tests/bench/naive_sweep: tests/bench/naive_sweep.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -Wall -Wextra -Werror -o $@ $<

# Benchmarks: ratios measured side by side in one run (never timed in the tests).
# (Not named BENCH_PROGRAMS: that is campaigns.sh's choice of real programs, from the environment.)
BENCH_BINARIES := $(addprefix $(BUILD)/tests/bench/,alloc_loop sites sites-exit symbolise_sites timed \
                                                    naive_nth.so naive_sweep)
bench: all $(BENCH_BINARIES)
	@BENCH_CALLS=$$(($(BENCH_SITES) * $(BENCH_ROUNDS))) sh tests/bench/run.sh

# Real Debian programs on small inputs, findings against hand verdicts (tests/realworld/).
realworld: all $(BUILD)/tests/realworld/fixed_clock.so
	@bash tests/realworld/run.sh

# Real C libraries' own test suites (jansson, json-c, expat, libyaml from Debian source packages,
# built with --coverage and cached in /var/cache/libfail-suites), each wrapped in a campaign and
# failrun cov, findings against hand verdicts (tests/suites/). Not part of make check: slow.
# SUITES="jansson json-c" picks libraries; SUITES_MAX_RUNS=N bounds each campaign.
suites: all
	@bash tests/suites/run.sh

# Fork mode against re-run mode on the same corpus, site by site; repeated campaigns agree
# (tests/realworld/fork_agreement.sh; not part of make check, .ci/run runs it: 2-3 minutes).
realworld-fork: all $(BUILD)/tests/realworld/fixed_clock.so
	@bash tests/realworld/fork_agreement.sh

# time() fixed for the realworld campaigns (programs that seed hashes from the clock).
$(BUILD)/tests/realworld/fixed_clock.so: tests/realworld/fixed_clock.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -o $@ $<

demo:
	@sh tools/deps.sh
	@$(MAKE) --no-print-directory all
	@sh tools/demo.sh

# The coverage demo: wordfreq's campaigns, failrun cov's summary, build/demo-cov/wordfreq.html.
demo-cov:
	@sh tools/deps.sh
	@$(MAKE) --no-print-directory all
	@sh tools/demo-cov.sh

# ---- install: make install PREFIX=/usr/local DESTDIR= ----
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0
LIBDIR := $(PREFIX)/lib
INSTALLED := $(DESTDIR)$(PREFIX)/bin/failrun $(DESTDIR)$(LIBDIR)/libfail.so.$(VERSION) \
    $(DESTDIR)$(LIBDIR)/libfail.so.0 $(DESTDIR)$(LIBDIR)/libfail.so $(DESTDIR)$(LIBDIR)/libfail.a \
    $(DESTDIR)$(LIBDIR)/libfail/libfail-preload.so $(DESTDIR)$(LIBDIR)/libfail/libfail-preload-io.so \
    $(DESTDIR)$(LIBDIR)/libfail/libfail-kernel.so \
    $(DESTDIR)$(LIBDIR)/libfail/libfail-audit.so $(DESTDIR)$(LIBDIR)/libfail/libfail-audit.supp \
    $(DESTDIR)$(LIBDIR)/libfail/libfail-valgrind.supp $(DESTDIR)$(LIBDIR)/pkgconfig/libfail.pc \
    $(DESTDIR)$(PREFIX)/include/libfail.h $(DESTDIR)$(PREFIX)/include/libfail/cmocka.h \
    $(DESTDIR)$(PREFIX)/share/man/man1/failrun.1 $(DESTDIR)$(PREFIX)/share/man/man3/libfail.3

install: $(LIBRARIES) $(BUILD)/failrun
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/libfail $(DESTDIR)$(LIBDIR)/pkgconfig \
	    $(DESTDIR)$(PREFIX)/include/libfail $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 755 $(BUILD)/failrun $(DESTDIR)$(PREFIX)/bin/failrun
	install -m 755 $(BUILD)/libfail.so $(DESTDIR)$(LIBDIR)/libfail.so.$(VERSION)
	ln -sf libfail.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libfail.so.0
	ln -sf libfail.so.0 $(DESTDIR)$(LIBDIR)/libfail.so
	install -m 644 $(BUILD)/libfail.a $(DESTDIR)$(LIBDIR)/libfail.a
	install -m 755 $(BUILD)/libfail-preload.so $(DESTDIR)$(LIBDIR)/libfail/libfail-preload.so
	install -m 755 $(BUILD)/libfail-preload-io.so $(DESTDIR)$(LIBDIR)/libfail/libfail-preload-io.so
	install -m 755 $(BUILD)/libfail-kernel.so $(DESTDIR)$(LIBDIR)/libfail/libfail-kernel.so
	install -m 755 $(BUILD)/libfail-audit.so $(DESTDIR)$(LIBDIR)/libfail/libfail-audit.so
	install -m 644 $(BUILD)/libfail-audit.supp $(DESTDIR)$(LIBDIR)/libfail/libfail-audit.supp
	install -m 644 $(BUILD)/libfail-valgrind.supp $(DESTDIR)$(LIBDIR)/libfail/libfail-valgrind.supp
	install -m 644 libfail/include/libfail.h $(DESTDIR)$(PREFIX)/include/libfail.h
	install -m 644 libfail/include/libfail/cmocka.h $(DESTDIR)$(PREFIX)/include/libfail/cmocka.h
	install -m 644 doc/failrun.1 $(DESTDIR)$(PREFIX)/share/man/man1/failrun.1
	install -m 644 doc/libfail.3 $(DESTDIR)$(PREFIX)/share/man/man3/libfail.3
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    doc/libfail.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/libfail.pc

uninstall:
	rm -f $(INSTALLED)
	-rmdir $(DESTDIR)$(LIBDIR)/libfail $(DESTDIR)$(PREFIX)/include/libfail 2>/dev/null

clean:
	rm -rf $(BUILD) .failrun

# kvtest linked with jemalloc: the preload must stack on another allocator.
$(BUILD)/tests/jemalloc/kvtest: examples/kvstore/kv.c examples/kvstore/kvtest.c examples/kvstore/kv.h
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ examples/kvstore/kv.c examples/kvstore/kvtest.c -ljemalloc
