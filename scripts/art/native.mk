# native.mk: builds ART's and libcore's native libraries and the dalvikvm launcher from
# Debian's android-platform-art (11) and android-platform-libcore (10) sources.
# make -f native.mk ART=dir LIBCORE=dir SHIMS=dir OBJ=dir LIB=dir BIN=dir
ANDROID_LIBDIR := /usr/lib/x86_64-linux-gnu/android
CC  := clang
CXX := clang++
ART_CPPFLAGS := -DNDEBUG -UDEBUG -I/usr/include/android -fmessage-length=0 -fno-exceptions \
  -fno-strict-aliasing -Wno-c99-designator -Wno-gnu-designator -Wno-gnu-folding-constant \
  -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS -D_FILE_OFFSET_BITS=64 -D_LARGEFILE_SOURCE=1 \
  -DART_BASE_ADDRESS_MAX_DELTA=0x1000000 -DART_BASE_ADDRESS_MIN_DELTA=-0x1000000 \
  -DART_BASE_ADDRESS=0x60000000 -DART_DEFAULT_COMPACT_DEX_LEVEL=fast -DART_DEFAULT_GC_TYPE_IS_CMS \
  -DART_ENABLE_ADDRESS_SANITIZER=1 -DART_ENABLE_CODEGEN_x86_64 -DART_FRAME_SIZE_LIMIT=1736 \
  -DART_READ_BARRIER_TYPE_IS_BAKER=1 -DART_STACK_OVERFLOW_GAP_arm=8192 \
  -DART_STACK_OVERFLOW_GAP_arm64=8192 -DART_STACK_OVERFLOW_GAP_x86_64=8192 \
  -DART_STACK_OVERFLOW_GAP_x86=8192 -DART_USE_READ_BARRIER=1 -DIMT_SIZE=43 -DUSE_D8_DESUGAR=1 \
  -I$(ART) -I/usr/include/android/nativehelper -I$(ART)/cmdline -I$(ART)/debian/out \
  -I$(ART)/libartbase -I$(ART)/libartbase/arch -I$(ART)/libartpalette/include -I$(ART)/libdexfile \
  -I$(ART)/libdexfile/external/include -I$(ART)/libelffile -I$(ART)/libnativebridge/include \
  -I$(ART)/libnativeloader/include -I$(ART)/libprofile -I$(ART)/runtime -I$(ART)/sigchainlib \
  -I$(ART)/tools/cpp-define-generator -I$(ART)/openjdkjvmti/include -I$(ART)/dexlayout \
  -include assert.h -include math.h
ART_CXXFLAGS := -std=gnu++17 -O2 -g0 -fPIC -fno-omit-frame-pointer -fno-rtti -fstrict-aliasing \
  -fvisibility=protected -Wno-invalid-offsetof -Wno-invalid-partial-specialization -w
ART_LDLIBS := -L$(ANDROID_LIBDIR) -Wl,-rpath,$(ANDROID_LIBDIR) -lart -lbase -llog -lnativehelper

# libcore: NativeCode.bp's flags for a glibc host (no -Werror: newer compilers warn more)
LIBCORE_FLAGS := -O2 -g0 -fPIC -w -DU_USING_ICU_NAMESPACE=0 -DU_DEFINE_FALSE_AND_TRUE=1 -I$(SHIMS)/include \
  -I$(LIBCORE)/luni/src/main/native -I/usr/include/android -I/usr/include/android/nativehelper
OJ_FLAGS := $(LIBCORE_FLAGS) -D_LARGEFILE64_SOURCE -D_GNU_SOURCE -DLINUX -D__GLIBC__ \
  -I$(LIBCORE)/ojluni/src/main/native -I$(SHIMS)/fdlibm/x/y
LIBCORE_LDLIBS := -L$(ANDROID_LIBDIR) -Wl,-rpath,$(ANDROID_LIBDIR) -L$(LIB) -Wl,-rpath,'$$ORIGIN' \
  -lnativehelper -lbase -llog

bp_srcs = $(shell sed -n '/name: "$(2)"/,/]/p' $(1) | grep -o '"[^"]*\.c[p]*"' | tr -d '"')
LUNI_SRCS := $(addprefix luni/src/main/native/,$(call bp_srcs,$(LIBCORE)/luni/src/main/native/Android.bp,luni_native_srcs)) \
  dalvik/src/main/native/org_apache_harmony_dalvik_NativeTestTarget.cpp
OJ_SRCS := $(addprefix ojluni/src/main/native/,$(call bp_srcs,$(LIBCORE)/ojluni/src/main/native/Android.bp,libopenjdk_native_srcs))
JVMTI_SRCS := $(notdir $(wildcard $(ART)/openjdkjvmti/*.cc))
DEXLAYOUT_SRCS := compact_dex_writer.cc dexlayout.cc dex_ir.cc dex_ir_builder.cc dex_verify.cc \
  dex_visualize.cc dex_writer.cc

LUNI_OBJS := $(addprefix $(OBJ)/libcore/,$(addsuffix .o,$(LUNI_SRCS)))
OJ_OBJS := $(addprefix $(OBJ)/libcore/,$(addsuffix .o,$(OJ_SRCS)))
JVMTI_OBJS := $(addprefix $(OBJ)/art/openjdkjvmti/,$(JVMTI_SRCS:.cc=.o)) \
  $(addprefix $(OBJ)/art/dexlayout/,$(DEXLAYOUT_SRCS:.cc=.o))

all: $(LIB)/libopenjdkjvm.so $(LIB)/libandroidio.so $(LIB)/libjavacore.so $(LIB)/libopenjdk.so \
  $(LIB)/libicu_jni.so $(LIB)/libopenjdkjvmti.so $(BIN)/dalvikvm.bin

$(OBJ)/art/%.o: $(ART)/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -c -o $@ $< $(ART_CPPFLAGS) $(ART_CXXFLAGS)

$(OBJ)/libcore/ojluni/%.c.o: $(LIBCORE)/ojluni/%.c
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $< $(OJ_FLAGS) -std=gnu11

$(OBJ)/libcore/ojluni/%.cpp.o: $(LIBCORE)/ojluni/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) -c -o $@ $< $(OJ_FLAGS) -std=gnu++17

$(OBJ)/libcore/%.cpp.o: $(LIBCORE)/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) -c -o $@ $< $(LIBCORE_FLAGS) -std=gnu++17 -include string.h \
	  $(if $(findstring NativeBN,$<),-include boringssl_bn_compat.h)

$(LIB)/libopenjdkjvm.so: $(OBJ)/art/openjdkjvm/OpenjdkJvm.o
	@mkdir -p $(dir $@)
	$(CXX) -shared -o $@ $^ -Wl,-soname,libopenjdkjvm.so $(ART_LDLIBS)

$(LIB)/libopenjdkjvmti.so: $(JVMTI_OBJS)
	$(CXX) -shared -o $@ $^ -Wl,-soname,libopenjdkjvmti.so $(ART_LDLIBS) -ldexfile_support

$(LIB)/libandroidio.so: $(OBJ)/libcore/luni/src/main/native/AsynchronousCloseMonitor.cpp.o
	@mkdir -p $(dir $@)
	$(CXX) -shared -o $@ $^ -Wl,-soname,libandroidio.so $(LIBCORE_LDLIBS)

$(LIB)/libjavacore.so: $(LUNI_OBJS) $(LIB)/libandroidio.so
	$(CXX) -shared -o $@ $(LUNI_OBJS) -Wl,-soname,libjavacore.so $(LIBCORE_LDLIBS) -landroidio \
	  -licui18n -licuuc -lcrypto -lexpat -lz -lziparchive -Wl,--no-undefined

$(LIB)/libopenjdk.so: $(OJ_OBJS) $(LIB)/libandroidio.so $(LIB)/libopenjdkjvm.so
	$(CXX) -shared -o $@ $(OJ_OBJS) -Wl,-soname,libopenjdk.so $(LIBCORE_LDLIBS) -landroidio \
	  -lopenjdkjvm -licuuc -lz -lm

# Stand-in: ART 11 loads libicu_jni.so first (external/icu's JNI code in Android 11); with
# libcore 10 the ICU natives (libcore.icu.*) are still in libjavacore, so nothing is left for it.
$(LIB)/libicu_jni.so: $(SHIMS)/icu_jni_stub.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -O2 -o $@ $< -I/usr/include/android/nativehelper -Wl,-soname,libicu_jni.so

# dalvikvm.cc unchanged; libart.so.0 from Debian does not link its own dependencies (underlinked),
# so the launcher carries them, libsigchain first so that its sigaction interposes.
$(BIN)/dalvikvm.bin: $(ART)/dalvikvm/dalvikvm.cc
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $< -std=gnu++17 -O2 -DNDEBUG -I/usr/include/android -I/usr/include/android/nativehelper \
	  -L$(ANDROID_LIBDIR) -Wl,-rpath,$(ANDROID_LIBDIR) -Wl,--no-as-needed -lsigchain -lnativehelper \
	  -lart -lbase -llog -lziparchive -lbacktrace -lnativebridge -lnativeloader -ldexfile_support \
	  -lcutils -l:libunwind.so.0 -llz4 -lz -ldl -lpthread -Wl,--as-needed
