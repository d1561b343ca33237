# oomscope: `make` builds everything (installing missing Debian packages first),
# `make test` runs the whole test suite, `make demo` the newcomer's demo,
# `make bench` the benchmark tables, `make deps` only the Debian packages.
HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
NPROC := $(shell nproc)
ARCH ?= $(HOST_ARCH)
BUILD := build
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= gcc
CXX ?= g++
# `make ARCH=arm64` on an x86_64 machine: everything cross-built with
# Debian's aarch64 toolchain against its arm64 libraries, into build-arm64/
# (oomscope, the shim, the unit tests, tools and test targets; the BPF objects
# for arm64 from vmlinux/arm64/vmlinux.h)
ifneq ($(ARCH),$(HOST_ARCH))
ifneq ($(ARCH),arm64)
$(error ARCH=$(ARCH): only arm64 can be cross-built (on x86_64))
endif
CROSS := aarch64-linux-gnu-
CC := $(CROSS)gcc
CXX := $(CROSS)g++
BUILD := build-arm64
DEPS_ARGS := --arm64
endif

# ccache when installed (scripts/install-deps.sh installs it): a fresh clone's
# build takes the objects this machine compiled before, as make test's from a
# new clone in CI; keyed by the sources, flags and compiler, paths made
# relative (CCACHE_BASEDIR), so another clone's directory still hits.
# OOMS_CCACHE=0 turns it off; OOMS_CCACHE_DIR moves its cache.
ifneq ($(OOMS_CCACHE),0)
ifneq ($(wildcard /usr/lib/ccache/gcc),)
export PATH := /usr/lib/ccache:$(PATH)
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
ifneq ($(OOMS_CCACHE_DIR),)
export CCACHE_DIR := $(OOMS_CCACHE_DIR)
else ifneq ($(shell test -w /var/cache && echo w),)
export CCACHE_DIR := /var/cache/oomscope/ccache
endif
endif
endif

CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer
# SAN=1: oomscope, the unit tests, the test tools and the fuzz replays built
# with ASan + UBSan in build-san/ (the BPF objects, the test targets and the
# shim, which runs inside a JVM, stay plain in build/); `make test SAN=1`
# runs the suite with them
PLAIN_CFLAGS := $(CFLAGS)
ifeq ($(SAN)$(CROSS),1aarch64-linux-gnu-)
$(error SAN=1 is for the machine's own arch, not ARCH=$(ARCH))
endif
ifeq ($(SAN),1)
OBJ := build-san
CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined
OOMS_BIN := $(OBJ)/oomscope
else ifneq ($(CROSS),)
OBJ := $(BUILD)
OOMS_BIN := $(BUILD)/oomscope
else
OBJ := build
OOMS_BIN := oomscope
endif
# -MMD -MP: each object depends on the headers it includes (build/**/*.d)
CPPFLAGS := -Iuser -I$(BUILD) -MMD -MP
LDLIBS := -lpthread -lbpf -ldw -lelf -lz -llzma -ljson-c -liberty -lsqlite3 -lm -ldl
# the PostgreSQL store: libpq's header (Debian's libpq-dev); libpq.so.5 is
# loaded at run time, only for a PostgreSQL store
%/user/report/store_pg.o: CPPFLAGS += -I/usr/include/postgresql
# usdt.bpf.h includes <linux/errno.h>, which wants the multiarch asm/ headers
# (named from ARCH, not asked of $(CC): on a fresh machine the cross compiler is
# installed by install-deps only after this Makefile is read)
MULTIARCH_x86 := x86_64-linux-gnu
MULTIARCH_arm64 := aarch64-linux-gnu
MULTIARCH_INC := -idirafter /usr/include/$(MULTIARCH_$(ARCH))
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) $(MULTIARCH_INC) -Wall -Werror
TARGET_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -pthread
TARGET_CXXFLAGS := -std=gnu++17 -O1 -g -fno-omit-frame-pointer -fno-inline -Wall -Wextra -Werror -pthread

# (and of the shim's: the ART symbols' names, and the agent options that
# carry them, which oomscope writes and the shim reads)
USER_SRCS := $(shell find user -name '*.c' ! -name '*.bpf.c' ! -path user/main.c ! -path 'user/shim/*' | sort) \
	user/shim/art_syms.c user/shim/elfsym.c
USER_OBJS := $(USER_SRCS:%.c=$(OBJ)/%.o)
# each BPF object beside the user code that loads it (x.bpf.c with x.c, as
# libbpf-tools pairs them); objects and skeletons named by the stem alone
BPF_SRCS := $(shell find user -name '*.bpf.c' | sort)
BPF_OBJS := $(foreach f,$(BPF_SRCS),$(BUILD)/$(notdir $(f:.bpf.c=.bpf.o)))
SKELS := $(foreach f,$(BPF_SRCS),$(BUILD)/$(notdir $(f:.bpf.c=.skel.h)))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OBJ)/tests/%)
# fuzz harnesses (tests/fuzz/fuzz_NAME.c): `make fuzz`, and replays in `make test`
FUZZ_SECONDS ?= 60
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRCS:tests/fuzz/fuzz_%.c=%)
FUZZ_LIB_SRCS := $(wildcard user/hprof/*.c user/graph/*.c user/analyze/*.c user/util/*.c) user/run/analysis_write.c
FUZZ_LIBS := -lpthread -lz -llzma -lm -ljson-c -ldw -lelf -lsqlite3 -ldl
# what each harness links besides its own file: FUZZ_SRCS_NAME (the hprof,
# analyze and util libraries when not set); the replays link libooms.a and
# FUZZ_REPLAY_SRCS_NAME (the shim's sources, which libooms.a does not hold)
# rundata reads through run_files.c's table, whose rows also write the story, the page and the store
FUZZ_SRCS_rundata := $(wildcard user/report/*.c) user/run/timeline.c user/run/records.c user/util/json.c user/util/text.c
FUZZ_SRCS_elf := user/sym/elf.c user/shim/elfsym.c
FUZZ_REPLAY_SRCS_elf := user/shim/elfsym.c
FUZZ_SRCS_shim_control := user/shim/request.c
FUZZ_REPLAY_SRCS_shim_control := user/shim/request.c
FUZZ_SRCS_hsperf := user/runtime/hsperf.c user/runtime/hs_attach.c user/proc/procfs.c
FUZZ_SRCS_attach_reply := user/runtime/hs_attach.c user/proc/procfs.c
fuzz_srcs = $(if $(FUZZ_SRCS_$1),$(FUZZ_SRCS_$1),$(FUZZ_LIB_SRCS))
# every source a harness links, compiled once for all of them (instrumented
# for libFuzzer, ASan and UBSan) into one archive: each harness takes what it uses
FUZZ_ALL_SRCS := $(sort $(FUZZ_LIB_SRCS) $(wildcard user/run/*.c) user/detect/resource.c \
	$(foreach n,$(FUZZ_NAMES),$(FUZZ_SRCS_$(n))))
# an archive's members are named by their file names alone: the room is in the name
fuzz_obj = $(BUILD)/fuzz/obj/$(subst /,-,$(1:user/%.c=%)).o
FUZZ_OBJS := $(foreach f,$(FUZZ_ALL_SRCS),$(call fuzz_obj,$(f)))
FUZZ_LIB := $(BUILD)/fuzz/libfuzzed.a
FUZZ_BINS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
REPLAY_BINS := $(FUZZ_NAMES:%=$(OBJ)/fuzz/replay_%)
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(OBJ)/tools/%)
TARGET_SRCS := $(wildcard tests/targets/*.c)
TARGET_CXX_SRCS := $(wildcard tests/targets/*.cc)
TARGET_BINS := $(TARGET_SRCS:tests/targets/%.c=$(BUILD)/targets/%) $(TARGET_CXX_SRCS:tests/targets/%.cc=$(BUILD)/targets/%)
# an app in Android's layout (android.bats): its code in a library it finds at /system/lib64
TARGET_BINS += $(BUILD)/targets/android/android_app $(BUILD)/targets/android/libandroid_app.so \
	       $(BUILD)/targets/android/base.odex $(BUILD)/targets/android/boot-framework.oat
# ARCH=arm64 also builds 32-bit ARM (armhf, static) test targets: Android
# still runs 32-bit apps on arm64 kernels (tests/bats-arm64/)
ifneq ($(CROSS),)
TARGET32_NAMES := fd_target thread_target map_target alloc_target
TARGET_BINS += $(TARGET32_NAMES:%=$(BUILD)/targets32/%)
endif
# the phone-like root's programs (tests/bats-arm64/phone.bats): static, as
# no libc is there
TARGET_BINS += $(BUILD)/targets-static/zygote $(BUILD)/targets-static/lmkd
# the shim loaded by a program of each libc the machine has (it links none);
# the arm64 VM's lanes load it with glibc's, a copy aligned to 4 KiB beside it
# (the 16 KiB kernel's loader refuses that one: shim_libc.bats)
TARGET_BINS += $(BUILD)/targets/shim_load_glibc $(BUILD)/targets/liboomscope_shim_4k.so
ifeq ($(CROSS),)
TARGET_BINS += $(BUILD)/targets/shim_load_musl
endif
# a program and the library it dlopens (hostile.bats garbles the library on disk
# while it is mapped), built here for either arch: the arm64 VM compiles nothing
TARGET_BINS += $(BUILD)/targets/dlopen/dlopen_target $(BUILD)/targets/dlopen/libevil.so
DEPS_OK := $(BUILD)/.deps-ok
# The shim: a JVMTI agent loaded into the target, with the hprof library in
# it. It links no libc (user/shim/libc/ has what it needs, hidden), so one
# build loads into processes on glibc, bionic or musl: no DT_NEEDED, no
# undefined symbol, no TLS (hence no stack protector: its canary is in TLS).
# JAVA_HOME is looked up when a recipe needs it (after install-deps).
JAVA_HOME ?= $(shell dirname "$$(dirname "$$(readlink -f "$$(command -v javac)")")")
SHIM := $(BUILD)/liboomscope_shim.so
SHIM_SRCS := $(wildcard user/shim/*.c user/shim/libc/*.c) $(addprefix user/hprof/,emit.c idset.c io.c names.c parser.c quote.c stream.c transform.c writer.c)
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/pic/%.o)
SHIM_CFLAGS := $(PLAIN_CFLAGS) -fPIC -fvisibility=hidden -fno-stack-protector -fno-strict-aliasing -U_FORTIFY_SOURCE \
	-DHPROF_PLAIN_ONLY -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux
# aarch64: atomics inline (libgcc's out-of-line ones ask the auxiliary vector, through libc)
ifeq ($(ARCH),arm64)
SHIM_CFLAGS += -mno-outline-atomics
endif
# its libc's own loops must not become calls to the functions they implement
SHIM_LIBC_CFLAGS := -ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns

.SECONDARY:
.PHONY: all deps test test-arm64 unit demo bench bench-arm64 clean install android fuzz fuzz-bins fuzz-replay corpus art
PREFIX ?= /usr/local
all: $(OOMS_BIN) $(SHIM) $(TARGET_BINS)

deps: $(DEPS_OK)
$(DEPS_OK): scripts/install-deps.sh
	@mkdir -p $(BUILD)
	scripts/install-deps.sh $(DEPS_ARGS)
	@touch $@

define bpf_rule
$(BUILD)/$(notdir $(1:.bpf.c=.bpf.o)): $(1) $(wildcard $(dir $(1))*.h) | $(DEPS_OK)
	@mkdir -p $$(@D)
	$$(CLANG) $$(BPF_CFLAGS) -c $$< -o $$@.tmp
	@# no instruction Android 12's 5.10 refuses: the atomics of 5.12 (a fetch-add whose result is used, xchg...)
	@if llvm-objdump -d $$@.tmp | grep -qE 'atomic_fetch|xchg|cmpxchg'; then \
	  llvm-objdump -d $$@.tmp | grep -E 'atomic_fetch|xchg|cmpxchg' | head -n 3 >&2; \
	  echo "$$<: an atomic that 5.10 kernels refuse (BPF_FETCH, 5.12): use __sync_fetch_and_add's result nowhere" >&2; rm -f $$@.tmp; exit 1; fi
	llvm-strip -g $$@.tmp -o $$@ && rm -f $$@.tmp	# keep BTF, drop DWARF
endef
$(foreach f,$(BPF_SRCS),$(eval $(call bpf_rule,$(f))))

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# the skeletons first (generated headers); -MMD then names the objects that use them
$(OBJ)/user/%.o: user/%.c | $(DEPS_OK) $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(OBJ)/libooms.a: $(USER_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/pic/user/shim/libc/%.o: user/shim/libc/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) $(SHIM_LIBC_CFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(SHIM_CFLAGS) -c $< -o $@

# What a device loads is aligned to its page size or more: bionic's loader
# (and the kernel's, and glibc's) refuses a segment aligned to less than the
# page, and Android 15 and later run 16 KiB pages (phones, and the x86_64
# emulator's 16 KiB images). binutils aligns aarch64 to 64 KiB already;
# x86_64's default is 4 KiB.
PAGE_LDFLAGS_x86 := -Wl,-z,max-page-size=16384
PAGE_LDFLAGS := $(PAGE_LDFLAGS_$(ARCH))

# only Agent_OnLoad/Agent_OnAttach are exported (JNIEXPORT); libgcc for the
# compiler's own helpers (aarch64's outline atomics); a SONAME and both hash
# tables, as bionic's loader wants
$(SHIM): $(SHIM_OBJS)
	$(CC) -shared -nostdlib -Wl,-z,defs -Wl,-soname,liboomscope_shim.so -Wl,--hash-style=both \
		-Wl,-z,noexecstack -Wl,-z,relro $(PAGE_LDFLAGS) -o $@ $^ -lgcc

$(BUILD)/targets/liboomscope_shim_4k.so: $(SHIM_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -nostdlib -Wl,-z,defs -Wl,-soname,liboomscope_shim.so -Wl,--hash-style=both \
		-Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,max-page-size=4096 -o $@ $^ -lgcc

$(OOMS_BIN): $(OBJ)/user/main.o $(OBJ)/libooms.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# the shim's JVMTI header: the JDK's jni.h and jvmti.h
$(OBJ)/tests/test_shim_jvmti: CPPFLAGS += -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux
$(OBJ)/tests/%: tests/unit/%.c $(OBJ)/libooms.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -o $@ $< $(OBJ)/libooms.a $(LDLIBS) -ldl

$(BUILD)/targets/%: tests/targets/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(TARGET_CFLAGS) -o $@ $<

# (the flags the test compiled them with: built with TARGET_CFLAGS instead, a
# stack of its eventfds had no frames in the arm64 VM and the test failed there)
$(BUILD)/targets/dlopen/dlopen_target: tests/targets/dlopen/main.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -o $@ $<
$(BUILD)/targets/dlopen/libevil.so: tests/targets/dlopen/lib.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) -O1 -g -fno-omit-frame-pointer -fPIC -shared -o $@ $<

$(BUILD)/targets/android/libandroid_app.so: tests/targets/android/libapp.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(TARGET_CFLAGS) -fPIC -shared -o $@ $<

# oat files' stand-ins: compiled Java named as dex2oat names it, in MiniDebugInfo only
$(BUILD)/targets/android/base.odex: tests/targets/android/oat_app.c tests/targets/android/make_oat.sh | $(DEPS_OK)
	@mkdir -p $(@D)
	tests/targets/android/make_oat.sh "$(CC)" "$(CROSS)" $@ $< cacheloader_open_all=com.example.leakyapp.CacheLoader.openAll

$(BUILD)/targets/android/boot-framework.oat: tests/targets/android/oat_boot.c tests/targets/android/make_oat.sh | $(DEPS_OK)
	@mkdir -p $(@D)
	tests/targets/android/make_oat.sh "$(CC)" "$(CROSS)" $@ $< 'fis_init=java.io.FileInputStream.<init>'

$(BUILD)/targets/android/android_app: tests/targets/android/app.c $(BUILD)/targets/android/libandroid_app.so
	$(CC) $(TARGET_CFLAGS) -o $@ $< -L$(@D) -landroid_app -Wl,-rpath,/system/lib64

$(BUILD)/targets/shim_load_musl: tests/targets/libc/shim_load.c | $(DEPS_OK)
	@mkdir -p $(@D)
	musl-gcc -O1 -Wall -Wextra -Werror -o $@ $<

$(BUILD)/targets/shim_load_glibc: tests/targets/libc/shim_load.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(TARGET_CFLAGS) -o $@ $< -ldl

$(BUILD)/targets32/%: tests/targets/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	arm-linux-gnueabihf-gcc -marm -static $(TARGET_CFLAGS) -o $@ $<

$(BUILD)/targets-static/%: tests/targets/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) -static $(TARGET_CFLAGS) -o $@ $< 2>&1 | { grep -v -e 'statically linked applications requires at runtime' -e 'in function' || true; }
	@test -x $@

$(BUILD)/targets/%: tests/targets/%.cc | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CXX) $(TARGET_CXXFLAGS) -o $@ $<

$(OBJ)/tools/%: tests/tools/%.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<
# shimctl speaks through oomscope's own client
$(OBJ)/tools/shimctl: tests/tools/shimctl.c $(OBJ)/libooms.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(OBJ)/libooms.a $(LDLIBS)

unit: $(UNIT_BINS) $(TOOL_BINS) $(REPLAY_BINS)

# real ART (Android's runtime) for this machine, built once and cached (scripts/art.sh):
# build/art/bin/dalvikvm and build/art/bin/dex
art: | $(DEPS_OK)
	scripts/art.sh

# the heap dumps the tests read, laid out in build/corpus/ (scripts/corpus.sh):
# the world's from tests/corpus/, javac's made once per machine and cached;
# nothing to do when it is up to date
unit: corpus
corpus: | $(DEPS_OK)
	scripts/corpus.sh

# test_symbolize's and test_art_syms's MiniDebugInfo files (a stripped
# program and a libart.so whose names are only in .gnu_debugdata), built for
# each arch with its compiler and binutils: the arm64 VM, where its unit
# tests run, has no compiler. The sanitized build's tests read the plain one.
MINIDEBUG_STAMP := $(BUILD)/minidebug/.built
unit: $(MINIDEBUG_STAMP)
$(MINIDEBUG_STAMP): tests/unit/make_minidebuginfo.sh tests/unit/minidebug_src.c tests/unit/art_minidebug_src.c | $(DEPS_OK)
	rm -rf $(@D).tmp
	CC="$(CC)" CROSS="$(CROSS)" sh $< $(@D).tmp > /dev/null
	@touch $(@D).tmp/.built
	rm -rf $(@D) && mv $(@D).tmp $(@D)

# The test apps in tests/java compiled once (class files run on either arch:
# test-arm64.sh copies them into the VM's tree): java's source launcher
# compiled each app at every launch, about 1.2 s of CPU here and ten times
# that emulated. The apps the BATS files run; the readers needing a jar
# (VisualVM's), hook/ (whose tests compile what they load) and the fixtures'
# makers (tests/hprof/) are left as they are.
JAVA_APPS := BusyHeap GarbageHeap LeakyService ManySmall NamedThreads PlantedLeaks PollerApp PoolLeaker ThreadBomb
JAVA_CLASSES := build/classes
JAVA_STAMP := $(JAVA_CLASSES)/.built
ifeq ($(CROSS),)
unit: $(JAVA_STAMP)
endif
$(JAVA_STAMP): $(JAVA_APPS:%=tests/java/%.java) | $(DEPS_OK)
	rm -rf $(JAVA_CLASSES).tmp && mkdir -p $(JAVA_CLASSES).tmp
	javac -Xlint:-removal -d $(JAVA_CLASSES).tmp $^
	@touch $(JAVA_CLASSES).tmp/.built
	rm -rf $(JAVA_CLASSES) && mv $(JAVA_CLASSES).tmp $(JAVA_CLASSES)

# `make test`: the whole suite, then the unit tests and three BATS files
# again under the sanitizers (scripts/run-tests.sh); `make test SAN=1`: the
# whole suite sanitized. `make test` then runs the arm64 suite in its VM
# (make test-arm64), in the same count; ARM64=0 leaves it out
ARM64 ?= 1
ifeq ($(SAN),1)
# the plain binary too: vm_kernel.bats copies it into a VM that has no
# sanitizer runtime
test: all unit
	$(MAKE) SAN= oomscope
	OOMS_BUILD=$(OBJ) OOMSCOPE=$(abspath $(OOMS_BIN)) scripts/run-tests.sh $(BATS_FILES)

# the sanitized binary finds the (plain) shim beside it
all: $(OBJ)/liboomscope_shim.so
$(OBJ)/liboomscope_shim.so: $(SHIM)
	@mkdir -p $(@D)
	cp $< $@
else
# the build is timed as the first of the phases run-tests.sh lists; the arm64
# packages first (the VM images' builders need apt to know arm64: on a new
# machine they failed at once and were made later, in front of their lanes);
# the VM images are made ready beside it (scripts/vm-images.sh, in a session of its
# own, out of the terminal's Ctrl-C: ended with the recipe when the build fails
# or it is interrupted, and then it ends every process under it)
test: $(DEPS_OK)
	@t0=$$(date +%s); mkdir -p build; \
	$(if $(filter 1,$(ARM64)),scripts/install-deps.sh --arm64 || exit 1;) \
	CCACHE_DISABLE=1 setsid scripts/vm-images.sh $(if $(filter 1,$(ARM64)),--arm64) > build/vm-images.log 2>&1 & images=$$!; \
	trap 'kill -TERM '$$images' 2> /dev/null' EXIT; trap 'exit 130' INT TERM; \
	$(MAKE) -j$(NPROC) all unit fuzz-bins && $(MAKE) -j$(NPROC) SAN=1 all unit \
	  $(if $(filter 1,$(ARM64)),&& $(MAKE) -j$(NPROC) ARCH=arm64 all unit) && $(MAKE) android || exit 1; \
	OOMS_BUILD_SECONDS=$$(($$(date +%s) - t0)) OOMS_VM_IMAGES=1 OOMS_SAN_BUILD=build-san OOMS_JOBS=$${OOMS_JOBS:-2} \
	  $(if $(filter 1,$(ARM64)),OOMS_ARM64=1) \
	  scripts/run-tests.sh $(BATS_FILES)
endif

demo: all
	scripts/demo.sh

# the arm64 build tested in an arm64 VM (scripts/test-arm64.sh); the VM's
# root image is made once under build/vm/arm64 (about 10 min)
test-arm64:
	$(MAKE) ARCH=arm64 all unit && $(MAKE) $(JAVA_STAMP)
	scripts/test-arm64.sh

bench: all
	QUICK=$(QUICK) scripts/bench.sh

# the collector's table of `make bench`, measured in the arm64 VM (ratios only: emulated)
bench-arm64:
	$(MAKE) ARCH=arm64 all
	QUICK=$(QUICK) scripts/bench-arm64.sh

# `make android`: what a phone or an emulator runs, per ABI in build/android/
# (arm64-v8a, x86_64): oomscope linked statically (every library in it, its BPF
# objects inside: a device has none of them, not even glibc's loader) and
# the shim beside it (it links no libc), both stripped
$(OBJ)/static/oomscope: $(OBJ)/user/main.o $(OBJ)/libooms.a
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(PAGE_LDFLAGS) -o $@ $^ $(LDLIBS) 2>&1 | { grep -v -e 'statically linked applications requires at runtime' -e 'in function' || true; }
	@test -x $@

android:
	$(MAKE) -j$(NPROC) $(BUILD)/static/oomscope $(SHIM)
	$(MAKE) -j$(NPROC) ARCH=arm64 build-arm64/static/oomscope build-arm64/liboomscope_shim.so
	scripts/android-package.sh build/android

# the binary, the shim where the binary looks for it (../lib/oomscope), the man page
install: oomscope $(SHIM)
	install -D -m 0755 oomscope $(DESTDIR)$(PREFIX)/bin/oomscope
	install -D -m 0644 $(SHIM) $(DESTDIR)$(PREFIX)/lib/oomscope/liboomscope_shim.so
	install -D -m 0644 docs/oomscope.8 $(DESTDIR)$(PREFIX)/share/man/man8/oomscope.8

# fuzzing (clang's libFuzzer, ASan + UBSan): `make fuzz` runs every harness
# in tests/fuzz/ for FUZZ_SECONDS each; `make test` replays the inputs under
# tests/fuzz/regressions/ through them, built plainly (fuzz-replay)

FUZZ_CFLAGS := -std=gnu11 -g -O1 -Iuser -fsanitize=address,undefined -fno-sanitize-recover=undefined
define fuzz_obj_rule
$(call fuzz_obj,$(1)): $(1) | $(DEPS_OK)
	@mkdir -p $$(@D)
	$$(CLANG) $$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $$@ $$<
endef
$(foreach f,$(FUZZ_ALL_SRCS),$(eval $(call fuzz_obj_rule,$(f))))
$(call fuzz_obj,user/report/store_pg.c): FUZZ_CFLAGS += -I/usr/include/postgresql

$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(FUZZ_LIBS)

$(OBJ)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(OBJ)/libooms.a
	@mkdir -p $(@D)
	$(CC) -Iuser $(CFLAGS) -o $@ $< tests/fuzz/replay.c $(FUZZ_REPLAY_SRCS_$*) $(OBJ)/libooms.a $(LDLIBS)

# each replay also depends on the sources it links
$(foreach n,$(FUZZ_NAMES),$(eval $(OBJ)/fuzz/replay_$(n): $(FUZZ_REPLAY_SRCS_$(n))))

fuzz-replay: $(REPLAY_BINS)

# the harnesses built (`make test` runs each a few seconds: tests/bats/fuzz.bats)
fuzz-bins: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh $(FUZZ_NAMES)

clean:
	rm -rf $(BUILD) build-san oomscope

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
