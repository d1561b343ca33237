/* art-lab stand-in for Android 11's libicu_jni.so (see native.mk). */
#include <jni.h>
JNIEXPORT jint JNI_OnLoad(JavaVM* vm, void* reserved) {
  (void)vm; (void)reserved;
  return JNI_VERSION_1_6;
}
